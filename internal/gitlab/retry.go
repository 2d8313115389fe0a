package gitlab

// Retry policy.
//
//   - Reads (GET) are retried on transport errors, 429 and 5xx.
//   - Writes (creating a pipeline, cancelling, editing a resource group)
//     are retried only when the server certainly did not act on them: a 429
//     (GitLab's rate limiter answers before the request is processed) or a
//     connection that was never established (dial error). A timeout, a
//     reset connection or a 5xx after sending is ambiguous: the write is
//     reported as failed and never repeated, so a pipeline is never
//     created twice by a retry. Callers mark writes with WriteCtx.
//   - Retry-After (seconds or HTTP date), else RateLimit-Reset on a 429,
//     sets the wait; a wait longer than MaxRetryAfter fails the request
//     instead. Otherwise the wait is full-jitter exponential backoff.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

type retryPolicy struct {
	now func() time.Time
}

type writeKey struct{}

// WriteCtx marks ctx as carrying a non-idempotent request.
func WriteCtx(ctx context.Context) context.Context { return context.WithValue(ctx, writeKey{}, true) }

func isWrite(ctx context.Context) bool { return ctx.Value(writeKey{}) != nil }

// classify is the verdict of the policy above on one attempt; the
// httpx retry layer under client-go applies it.
func (p retryPolicy) classify(req *http.Request, resp *http.Response, err error, _ bool) httpx.Outcome {
	ctx := req.Context()
	if ctx.Err() != nil {
		return httpx.Outcome{}
	}
	write := isWrite(ctx)
	if err != nil {
		return httpx.Outcome{Retry: !write || NeverSent(err)}
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented && !write:
	default:
		return httpx.Outcome{}
	}
	out := httpx.Outcome{Retry: true}
	out.Wait, out.HasWait = p.serverWait(resp)
	return out
}

// NeverSent reports whether err happened before a connection existed, so
// the server cannot have acted on the request.
func NeverSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// Refused reports whether a failed write certainly had no effect: GitLab
// (or what answered for it) declined it with a definite refusal
// (httpx.Refusal: a 4xx other than 408 and 429), or it was never sent
// (NeverSent). Any other failure of a write (a 5xx, a timeout, a reset
// connection, a 2xx whose body could not be read) may have taken effect.
func Refused(err error) bool {
	var er *gl.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return httpx.Refusal(er.Response.StatusCode)
	}
	return errors.Is(err, gl.ErrNotFound) || NeverSent(err) // client-go answers a 404 with ErrNotFound
}

// serverWait is the wait the server asked for, if any. GitLab's times (a
// Retry-After date, RateLimit-Reset) are measured against the answer's own
// Date, GitLab's clock, whatever the host's says; without a Date, p.now.
func (p retryPolicy) serverWait(resp *http.Response) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	now, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		now = p.now()
	}
	if d, ok := httpx.RetryAfter(resp.Header.Get("Retry-After"), now); ok {
		return d, true
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		if s, err := strconv.ParseInt(resp.Header.Get("RateLimit-Reset"), 10, 64); err == nil && s > 0 {
			return max(time.Unix(s, 0).Sub(now), 0), true
		}
	}
	return 0, false
}

// noRetry turns client-go's own retry loop off: the httpx layer retries.
func noRetry(_ context.Context, _ *http.Response, err error) (bool, error) { return false, err }
