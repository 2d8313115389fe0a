// Package github builds go-github clients the way every fullsend component
// needs them: API base from GITHUB_API_URL (GitHub Enterprise Server works
// the same way), token from GITHUB_TOKEN or GH_TOKEN, plain http only for
// loopback hosts, request timeouts, bounded response bodies and no redirect
// to another origin. It also classifies failures into permanent, retryable
// and ambiguous ones and runs calls with a retry policy (retry.go).
package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

// DefaultAPIURL is the public GitHub REST API.
const DefaultAPIURL = "https://api.github.com/"

// Defaults for the HTTP client built by NewClient.
const (
	DefaultTimeout     = 30 * time.Second
	MaxResponseBytes   = 10 << 20 // bounded response bodies
	userAgent          = "fullsend"
	envAPIURL          = "GITHUB_API_URL"
	envToken           = "GITHUB_TOKEN"
	envTokenAlt        = "GH_TOKEN"
	maxRedirectsFollow = 5
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
	if e.APIURL == "" {
		e.APIURL = DefaultAPIURL
	}
	return e
}

// ClientOptions tunes NewClient. The zero value is usable.
type ClientOptions struct {
	// HTTPClient, when set, is used as is (tests); otherwise a client with
	// Timeout, bounded bodies and same-origin redirects is built.
	HTTPClient *http.Client
	Timeout    time.Duration // per request, default DefaultTimeout
}

// NewClient returns a go-github client for apiURL (empty means
// DefaultAPIURL) authenticating with token (empty means anonymous).
// apiURL must be https, or http on a loopback host (127.0.0.1, ::1,
// localhost). The client's own pre-emptive rate-limit checks are disabled:
// Call decides when to wait and retry.
func NewClient(apiURL, token string, o ClientOptions) (*gogithub.Client, error) {
	base, err := ParseAPIURL(apiURL)
	if err != nil {
		return nil, err
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = newHTTPClient(base, o.Timeout)
	}
	bs := base.String()
	opts := []gogithub.ClientOptionsFunc{
		gogithub.WithHTTPClient(hc),
		gogithub.WithURLs(&bs, &bs),
		gogithub.WithUserAgent(userAgent),
		gogithub.WithDisableRateLimitCheck(),
	}
	if token != "" {
		opts = append(opts, gogithub.WithAuthToken(token))
	}
	c, err := gogithub.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("GitHub client for %s: %v", bs, err)
	}
	return c, nil
}

// ParseAPIURL validates a GitHub API base URL and returns it with a
// trailing slash. Empty means DefaultAPIURL.
func ParseAPIURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultAPIURL
	}
	shown := httpx.SafeURL(raw) // never repeat a query, fragment or credentials
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL %q: not a URL: %v", shown, err)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q: missing host", shown)
	}
	if u.User != nil {
		return nil, fmt.Errorf("GITHUB_API_URL: credentials in the URL are not allowed; use GITHUB_TOKEN")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !httpx.IsLoopback(u.Hostname()) {
			return nil, fmt.Errorf("GITHUB_API_URL %q: plain http is allowed only for loopback hosts; use https", shown)
		}
	default:
		return nil, fmt.Errorf("GITHUB_API_URL %q: scheme must be https (or http for loopback)", shown)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q: must not carry a query or fragment", shown)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
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

func newHTTPClient(base *url.URL, timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &http.Client{
		// The timeout lives in the transport as a request context deadline
		// that ends when the body is read to its end or closed: go-github
		// replaces error bodies without closing them, which would strand
		// http.Client.Timeout's timer goroutine.
		Transport: limitTransport{next: http.DefaultTransport, max: MaxResponseBytes, timeout: timeout},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirectsFollow {
				return errors.New("too many redirects")
			}
			if req.URL.Scheme != base.Scheme || req.URL.Host != base.Host {
				return fmt.Errorf("refusing redirect from %s to another origin %s://%s", base.Host, req.URL.Scheme, req.URL.Host)
			}
			return nil
		},
	}
}

// limitTransport bounds each request by timeout (headers and body) and
// caps every response body at max bytes; reading beyond it fails instead
// of exhausting memory.
type limitTransport struct {
	next    http.RoundTripper
	max     int64
	timeout time.Duration
}

func (t limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return resp, err
	}
	if resp.Body == nil {
		cancel()
		return resp, nil
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.max, max: t.max, done: cancel}
	return resp, nil
}

// CloseIdleConnections forwards to the wrapped transport.
func (t limitTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// limitedBody caps a body and releases the request's deadline once the
// body ends, fails or is closed.
type limitedBody struct {
	rc        io.ReadCloser
	left, max int64
	done      func()
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Probe whether the body really continues beyond the limit.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			b.done()
			return 0, fmt.Errorf("GitHub response body exceeds %d bytes", b.max)
		}
		if err != nil {
			b.done()
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if err != nil {
		b.done()
	}
	return n, err
}

func (b *limitedBody) Close() error {
	err := b.rc.Close()
	b.done()
	return err
}
