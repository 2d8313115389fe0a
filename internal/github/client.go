// Package github builds go-github clients the way every fullsend component
// needs them: API base from GITHUB_API_URL (GitHub Enterprise Server works
// the same way), token from GITHUB_TOKEN or GH_TOKEN, on the httpx stack
// (URL policy, request timeouts, bounded bodies, same-origin redirects,
// redaction). It also classifies failures into permanent, retryable and
// ambiguous ones and runs calls under the httpx retry policy (retry.go).
package github

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/redact"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// DefaultAPIURL is the public GitHub REST API.
const DefaultAPIURL = "https://api.github.com/"

// Defaults for the HTTP client built by NewClient.
const (
	DefaultTimeout   = 30 * time.Second
	MaxResponseBytes = 10 << 20 // bounded response bodies
	userAgent        = "fullsend"
	envAPIURL        = "GITHUB_API_URL"
	envToken         = "GITHUB_TOKEN"
	envTokenAlt      = "GH_TOKEN"
)

// Env is the GitHub part of the environment, read by EnvOf.
type Env struct {
	APIURL string // GITHUB_API_URL, default DefaultAPIURL
	Token  string // GITHUB_TOKEN, else GH_TOKEN; never printed
}

// EnvOf reads the GitHub API settings through getenv.
func EnvOf(getenv func(string) string) Env {
	e := Env{APIURL: getenv(envAPIURL), Token: getenv(envToken)}
	if e.Token == "" {
		e.Token = getenv(envTokenAlt)
	}
	redact.Add(e.Token)
	if e.APIURL == "" {
		e.APIURL = DefaultAPIURL
	}
	return e
}

// ClientOptions tunes NewClient. The zero value is usable.
type ClientOptions struct {
	// HTTPClient, when set, is used with Call's retry layer added to its
	// transport; otherwise the httpx stack is built (Timeout, bounded
	// bodies, same-origin redirects, redaction).
	HTTPClient *http.Client
	Timeout    time.Duration // per request, default DefaultTimeout
	// Clock, when set, observes the Date of every answer: GitHub's clock
	// (package trackerclock).
	Clock *trackerclock.Clock
}

// NewClient returns a go-github client for apiURL (empty means
// DefaultAPIURL) authenticating with token (empty means anonymous). Every
// success answer is checked before go-github decodes it (answers.go).
// apiURL must be https, or http on a loopback host (127.0.0.1, ::1,
// localhost). The client's own pre-emptive rate-limit checks are disabled:
// Call decides when to wait and retry.
func NewClient(apiURL, token string, o ClientOptions) (*gogithub.Client, error) {
	base, err := ParseAPIURL(apiURL)
	if err != nil {
		return nil, err
	}
	hc := newHTTPClient(o.Timeout, o.Clock)
	if o.HTTPClient != nil {
		// Keep the caller's client, with Call's retries on its transport.
		c := *o.HTTPClient
		next := c.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		if o.Clock != nil {
			next = o.Clock.Transport(next)
		}
		c.Transport = answerCheck{next: httpx.RetryTransport(next, httpx.Retry{}, classifyAttempt)}
		hc = &c
	}
	bs := base.String()
	opts := []gogithub.ClientOptionsFunc{
		gogithub.WithHTTPClient(hc),
		gogithub.WithURLs(&bs, &bs),
		gogithub.WithUserAgent(userAgent),
		gogithub.WithDisableRateLimitCheck(),
	}
	if token != "" {
		redact.Add(token)
		opts = append(opts, gogithub.WithAuthToken(token))
	}
	c, err := gogithub.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("GitHub client for %s: %v", bs, err)
	}
	return c, nil
}

// ParseAPIURL validates a GitHub API base URL with the policy of
// httpx.ParseURL and returns it with a trailing slash. Empty means
// DefaultAPIURL.
func ParseAPIURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultAPIURL
	}
	u, err := httpx.ParseURL(envAPIURL, raw)
	if err != nil {
		return nil, err
	}
	u.Path += "/"
	return u, nil
}

// SplitRepo splits "owner/repo" into its two parts.
func SplitRepo(full string) (owner, repo string, err error) {
	owner, repo, ok := strings.Cut(full, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return "", "", fmt.Errorf("repository %q: want owner/repo", full)
	}
	return owner, repo, nil
}

func newHTTPClient(timeout time.Duration, clock *trackerclock.Clock) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hc := httpx.NewClient(httpx.Options{Timeout: timeout, MaxBody: MaxResponseBytes,
		Retry: &httpx.Retry{}, Classify: classifyAttempt, Clock: clock}) // Call sets each call's policy
	hc.Transport = answerCheck{next: hc.Transport}
	return hc
}
