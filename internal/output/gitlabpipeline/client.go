package gitlabpipeline

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// Retry policy.
//
//   - Reads (GET) are retried on transport errors, 429 and 5xx.
//   - Writes (creating a pipeline, cancelling, editing a resource group)
//     are retried only when the server certainly did not act on them: a 429
//     (GitLab's rate limiter answers before the request is processed) or a
//     connection that was never established (dial error). A timeout, a
//     reset connection or a 5xx after sending is ambiguous: the write is
//     reported as failed and never repeated, so a pipeline is never
//     created twice by a retry.
//   - Retry-After (seconds or HTTP date), else RateLimit-Reset on a 429,
//     sets the wait; a wait longer than MaxRetryAfter fails the request
//     instead. Otherwise the wait is full-jitter exponential backoff.
type retryPolicy struct {
	base, max, maxAfter time.Duration
	now                 func() time.Time
}

type writeKey struct{}

// writeCtx marks ctx as carrying a non-idempotent request.
func writeCtx(ctx context.Context) context.Context { return context.WithValue(ctx, writeKey{}, true) }

func isWrite(ctx context.Context) bool { return ctx.Value(writeKey{}) != nil }

// check implements retryablehttp.CheckRetry.
func (p retryPolicy) check(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	write := isWrite(ctx)
	if err != nil {
		if errors.Is(err, httpx.ErrCrossOriginRedirect) || errors.Is(err, httpx.ErrTooLarge) {
			return false, err
		}
		return !write || neverSent(err), err
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented && !write:
	default:
		return false, nil
	}
	if d, ok := p.serverWait(resp); ok && d > p.maxAfter {
		return false, nil
	}
	return true, nil
}

// neverSent reports whether err happened before a connection existed.
func neverSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// serverWait is the wait the server asked for, if any.
func (p retryPolicy) serverWait(resp *http.Response) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	if d, ok := httpx.RetryAfter(resp.Header.Get("Retry-After"), p.now()); ok {
		return d, true
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		if s, err := strconv.ParseInt(resp.Header.Get("RateLimit-Reset"), 10, 64); err == nil && s > 0 {
			return max(time.Unix(s, 0).Sub(p.now()), 0), true
		}
	}
	return 0, false
}

// backoff implements retryablehttp.Backoff.
func (p retryPolicy) backoff(_, _ time.Duration, attempt int, resp *http.Response) time.Duration {
	if d, ok := p.serverWait(resp); ok {
		return d
	}
	return httpx.Backoff(attempt, p.base, p.max, rand.Int64N)
}

// limitBody caps every response body at n bytes.
type limitBody struct {
	next http.RoundTripper
	n    int64
}

func (l limitBody) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if err == nil {
		resp.Body = &cappedBody{rc: resp.Body, left: l.n}
	}
	return resp, err
}

type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (c *cappedBody) Read(b []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.rc.Read(one[:]); n > 0 {
			return 0, httpx.ErrTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(b)) > c.left {
		b = b[:c.left]
	}
	n, err := c.rc.Read(b)
	c.left -= int64(n)
	return n, err
}

func (c *cappedBody) Close() error { return c.rc.Close() }

// newClient builds the GitLab client with the retry policy, timeouts,
// same-origin redirects and bounded bodies.
func newClient(o Options) (*gitlab.Client, error) {
	tr := o.Transport
	if tr == nil {
		tr = httpx.DefaultTransport()
	}
	hc := httpx.NewClient(o.Timeout, limitBody{next: tr, n: o.MaxBody})
	pol := retryPolicy{base: o.RetryBase, max: o.RetryMax, maxAfter: o.MaxRetryAfter, now: time.Now}
	opts := []gitlab.ClientOptionFunc{
		gitlab.WithURLWarningLogger(o.Log),
		gitlab.WithBaseURL(o.APIURL),
		gitlab.WithHTTPClient(hc),
		gitlab.WithCustomRetry(pol.check),
		gitlab.WithCustomBackoff(pol.backoff),
		gitlab.WithCustomRetryMax(o.MaxRetries),
	}
	if o.RateLimiter != nil {
		opts = append(opts, gitlab.WithCustomLimiter(o.RateLimiter))
	}
	return gitlab.NewClient(o.Token, opts...)
}
