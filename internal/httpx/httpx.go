// Package httpx holds the small, forge-neutral pieces of a careful HTTP
// client: base-URL policy (https, or http only on loopback), same-origin
// redirects, bounded response bodies, Retry-After parsing, full-jitter
// backoff, context-aware sleeping and secret redaction. Drivers build their API clients on it.
package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ParseBaseURL checks that raw is an absolute http(s) URL without query or
// fragment, and that plain http is used only for a loopback host. The
// returned URL has no trailing slash in its path. Errors show the URL
// without its user information, query and fragment, which may hold secrets.
func ParseBaseURL(raw string) (*url.URL, error) {
	shown := SafeURL(raw)
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		reason := "not a valid URL"
		var ue *url.Error
		if errors.As(err, &ue) && !hasUserinfo(strings.TrimSpace(raw)) {
			reason = ue.Err.Error()
		}
		return nil, fmt.Errorf("base URL %q: %s", shown, reason)
	}
	if u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("base URL %q: want an absolute https:// URL", shown)
	}
	if u.User != nil {
		return nil, fmt.Errorf("base URL %q: credentials in the URL are not allowed", shown)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("base URL %q: must not carry a query or fragment", shown)
	}
	if u.Scheme == "http" && !IsLoopback(u.Hostname()) {
		return nil, fmt.Errorf("base URL %q: plain http is allowed only for loopback hosts; use https", shown)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// SafeURL renders a possibly invalid URL for messages: user information
// becomes "…@" and a query or fragment becomes "?…" / "#…".
func SafeURL(raw string) string {
	s := strings.TrimSpace(raw)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i+1] + "…"
	}
	if start, at := userinfoEnd(s); at >= 0 {
		s = s[:start] + "…" + s[at:]
	}
	return s
}

// hasUserinfo reports whether the authority of raw holds user information.
func hasUserinfo(raw string) bool {
	_, at := userinfoEnd(raw)
	return at >= 0
}

// userinfoEnd finds the authority of s (after "scheme://", up to the path,
// query or fragment) and returns its start and the index of its last "@",
// or -1 when it has none.
func userinfoEnd(s string) (start, at int) {
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	}
	end := len(s)
	if i := strings.IndexAny(s[start:], "/?#"); i >= 0 {
		end = start + i
	}
	if i := strings.LastIndex(s[start:end], "@"); i >= 0 {
		return start, start + i
	}
	return start, -1
}

// IsLoopback reports whether host (without port) is localhost or a loopback
// IP address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// SameOrigin reports whether a and b share scheme, host and port.
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// MaxRedirects bounds the redirects NewClient follows.
const MaxRedirects = 5

// ErrCrossOriginRedirect is returned (wrapped in a *url.Error) when a server
// redirects to another origin.
var ErrCrossOriginRedirect = errors.New("redirect to another origin refused")

// MaxIdleConnsPerHost is how many idle connections per host the default
// transport keeps. http.DefaultTransport keeps 2, fewer than the parallel
// calls a poller makes (concurrency, default 4), so connections would be
// closed and reopened (TLS handshakes included) all the time.
const MaxIdleConnsPerHost = 32

// defaultTransport is shared by every client built without a transport, so
// they share one connection pool.
var defaultTransport = sync.OnceValue(func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	if t.MaxIdleConns > 0 && t.MaxIdleConns < MaxIdleConnsPerHost {
		t.MaxIdleConns = MaxIdleConnsPerHost
	}
	return t
})

// DefaultTransport returns the transport NewClient uses when given none: a
// clone of http.DefaultTransport (proxy settings, timeouts, HTTP/2) that
// keeps up to MaxIdleConnsPerHost idle connections per host.
func DefaultTransport() http.RoundTripper { return defaultTransport() }

// NewClient returns an *http.Client with an overall per-request timeout that
// follows at most MaxRedirects redirects, all within the original origin.
// A nil transport means DefaultTransport().
func NewClient(timeout time.Duration, transport http.RoundTripper) *http.Client {
	if transport == nil {
		transport = DefaultTransport()
	}
	return &http.Client{
		Timeout:   timeout,
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= MaxRedirects {
				return fmt.Errorf("stopped after %d redirects", MaxRedirects)
			}
			if !SameOrigin(req.URL, via[0].URL) {
				return fmt.Errorf("%w (to %s://%s)", ErrCrossOriginRedirect, req.URL.Scheme, req.URL.Host)
			}
			return nil
		},
	}
}

// ErrTooLarge reports a response body above the configured cap.
var ErrTooLarge = errors.New("response body too large")

// ReadLimited reads all of r, failing with ErrTooLarge when it holds more
// than limit bytes (limit <= 0 means no cap).
func ReadLimited(r io.Reader, limit int64) ([]byte, error) {
	if limit <= 0 {
		return io.ReadAll(r)
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > limit {
		return b[:limit], fmt.Errorf("%w (more than %d bytes)", ErrTooLarge, limit)
	}
	return b, nil
}

// RetryAfter parses a Retry-After header value (delay seconds or an HTTP
// date) relative to now. ok is false when the header is absent or invalid.
// A date in the past yields 0.
func RetryAfter(value string, now time.Time) (d time.Duration, ok bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	if d = t.Sub(now); d < 0 {
		d = 0
	}
	return d, true
}

// Backoff returns a full-jitter exponential delay for retry attempt
// (0-based): a uniform value in [0, min(max, base*2^attempt)). rnd returns a
// uniform int64 in [0, n); math/rand/v2's Int64N fits.
func Backoff(attempt int, base, max time.Duration, rnd func(n int64) int64) time.Duration {
	if base <= 0 {
		return 0
	}
	ceil := base
	for i := 0; i < attempt && ceil < max; i++ {
		ceil *= 2
	}
	if max > 0 && ceil > max {
		ceil = max
	}
	return time.Duration(rnd(int64(ceil)))
}

// Sleep waits d or until ctx is done, whichever comes first. It returns nil
// after a full wait and ctx.Err() when ctx ends first. A d of zero or less
// does not wait: it returns ctx.Err() at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Redact replaces every non-empty secret in s with "[REDACTED]".
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[REDACTED]")
		}
	}
	return s
}

// Snippet returns at most n bytes of b as a single printable line, for
// error messages about unexpected bodies.
func Snippet(b []byte, n int) string {
	s := string(b)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
}
