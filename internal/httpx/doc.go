// Package httpx is the one HTTP stack of fullsend's API clients (Jira,
// go-github, GitLab client-go): base-URL policy (https, or http only on
// loopback), same-origin redirects, a per-attempt timeout, bounded response
// bodies, an optional rate limiter, redaction of registered secrets from
// error answers, and one Retry-After-aware retry policy with an attempt and
// time budget and an OnRetry hook for logging. Each forge package only
// classifies its own failures (what is permanent, what is ambiguous) as an
// Outcome.
package httpx
