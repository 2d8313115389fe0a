// Package gitlab builds the GitLab API clients (client-go) on the shared
// HTTP stack and owns GitLab's retry policy: which requests may be
// repeated, and how long GitLab asks to wait. Every GitLab caller
// (gitlab-event, gitlab-poll, gitlab-pipeline, the agent job's check)
// gets its client here. It also holds fullsend's conventions on GitLab
// that more than one layer reads: the pipeline variables and the names of
// a scope's pipelines and resource group (pipelines.go), the listing of a
// scope's pipelines for the newest-pending rule (scope.go), and the agent
// job's start-up check that its pipeline is not superseded
// (superseded.go), which `fullsend run` calls.
package gitlab

import (
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/redact"
)

// Options configure a client. Zero values take the defaults named.
type Options struct {
	APIURL string // GitLab API base, e.g. https://gitlab.com/api/v4 (the /api/v4 suffix is optional)
	Token  string // never printed; registered with redact
	Log    *slog.Logger

	// MaxRetries bounds retries of one request (default 3; negative: none).
	// Only requests that are safe to repeat are retried (see retry.go).
	MaxRetries int
	// RetryBase and RetryMax bound the exponential backoff (defaults 500ms
	// and 10s); MaxRetryAfter is the longest Retry-After honoured before a
	// request fails instead (default 60s). RetryBudget bounds the time one
	// request spends retrying (zero: no bound).
	RetryBase, RetryMax, MaxRetryAfter, RetryBudget time.Duration
	// Timeout bounds each HTTP request (default 30s); MaxBody bounds
	// response bodies (default 8 MiB).
	Timeout time.Duration
	MaxBody int64
	// RateLimiter paces requests; nil uses the client library's limiter,
	// which adapts to GitLab's RateLimit-* headers.
	RateLimiter gl.RateLimiter
	// Transport overrides the HTTP transport (tests).
	Transport http.RoundTripper
}

// ErrNoToken is returned by NewClient when Options.Token is empty.
var ErrNoToken = errors.New("no GitLab token: set GITLAB_TOKEN")

// BaseURL checks raw against the shared base-URL policy (https, or http
// on loopback) and adds the /api/v4 suffix when it is missing.
func BaseURL(raw string) (string, error) {
	u, err := httpx.ParseBaseURL(raw)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(u.Path, "/api/v4") {
		u.Path += "/api/v4"
	}
	return u.String(), nil
}

func (o *Options) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.RetryBase, 500*time.Millisecond)
	def(&o.RetryMax, 10*time.Second)
	def(&o.MaxRetryAfter, time.Minute)
	def(&o.Timeout, 30*time.Second)
	if o.MaxBody <= 0 {
		o.MaxBody = 8 << 20
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = 3
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// NewClient builds a client-go client on the httpx stack: the retry
// policy of retry.go (client-go's own retry loop is off), per-request
// timeouts, same-origin redirects and bounded bodies, and outermost the
// check of every answer before client-go decodes it (answers.go): an
// answer it cannot take fails its one request with a *MalformedError,
// never retried.
func NewClient(o Options) (*gl.Client, error) {
	base, err := BaseURL(o.APIURL)
	if err != nil {
		return nil, err
	}
	if o.Token == "" {
		return nil, ErrNoToken
	}
	o.defaults()
	redact.Add(o.Token)
	pol := retryPolicy{now: time.Now}
	hc := httpx.NewClient(httpx.Options{
		Transport: o.Transport, Timeout: o.Timeout, MaxBody: o.MaxBody,
		Retry: &httpx.Retry{MaxAttempts: o.MaxRetries + 1, Budget: o.RetryBudget,
			BaseBackoff: o.RetryBase, MaxBackoff: o.RetryMax, MaxServerWait: o.MaxRetryAfter,
			Rand: rand.Int64N, OnRetry: func(i httpx.RetryInfo) {
				o.Log.Info("GitLab request failed; retrying", "attempt", i.Attempt, "wait", i.Wait, "reason", i.Reason)
			}},
		Classify: pol.classify,
	})
	u, _ := url.Parse(base) // BaseURL's own output
	hc.Transport = answerCheck{next: hc.Transport, base: strings.TrimSuffix(u.EscapedPath(), "/") + "/"}
	opts := []gl.ClientOptionFunc{
		gl.WithURLWarningLogger(o.Log),
		gl.WithBaseURL(base),
		gl.WithHTTPClient(hc),
		gl.WithCustomRetry(noRetry),
		gl.WithCustomRetryMax(0),
	}
	if o.RateLimiter != nil {
		opts = append(opts, gl.WithCustomLimiter(o.RateLimiter))
	}
	return gl.NewClient(o.Token, opts...)
}
