package httpx

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync/atomic"

	"github.com/fullsend-dev/fullsend/internal/redact"
)

// RetryTransport returns a round tripper that retries attempts on next
// under policy as classify allows. When the retries end on an answer, that
// answer is returned as is. A request whose context carries an Override
// uses the override's policy instead and gets its Result.
func RetryTransport(next http.RoundTripper, policy Retry, classify Classifier) http.RoundTripper {
	return retryTransport{next: next, policy: policy, classify: classify}
}

type retryTransport struct {
	next     http.RoundTripper
	policy   Retry
	classify Classifier
}

// Override is one request's own retry policy (attach it with
// WithOverride); the transport reports in Result how the retries ended.
type Override struct {
	Retry  Retry
	Result Result
}

type overrideKey struct{}

// WithOverride makes the requests made with ctx use o.Retry.
func WithOverride(ctx context.Context, o *Override) context.Context {
	return context.WithValue(ctx, overrideKey{}, o)
}

// errAnswer marks an answer the classifier wants retried.
var errAnswer = errors.New("retryable answer")

func (t retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var last *http.Response
	policy := t.policy
	ov, _ := req.Context().Value(overrideKey{}).(*Override)
	if ov != nil {
		policy = ov.Retry
	}
	res, err := policy.Do(req.Context(), func(ctx context.Context, n int) (Outcome, error) {
		discard(last)
		last = nil
		r, err := replay(req, n)
		if err != nil {
			return Outcome{}, err
		}
		var sent atomic.Bool
		r = r.WithContext(httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{
			WroteRequest: func(i httptrace.WroteRequestInfo) { sent.Store(i.Err == nil) },
		}))
		resp, err := t.next.RoundTrip(r)
		out := t.classify(r, resp, err, sent.Load())
		out.Retry = out.Retry && replayable(req)
		if out.Reason == "" {
			out.Reason = reason(resp, err)
		}
		if err != nil {
			return out, err
		}
		last = resp
		if out.Retry {
			return out, errAnswer
		}
		return out, nil
	})
	if ov != nil {
		ov.Result = res
	}
	if errors.Is(err, errAnswer) {
		err = nil
	}
	if err != nil {
		discard(last)
		return nil, err
	}
	return last, nil
}

// CloseIdleConnections forwards to the wrapped transport.
func (t retryTransport) CloseIdleConnections() { CloseIdle(t.next) }

func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// replay returns the request for attempt n with a fresh body.
func replay(req *http.Request, n int) (*http.Request, error) {
	if n == 1 || req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Body = body
	return r, nil
}

func discard(resp *http.Response) {
	if resp != nil && resp.Body != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
	}
}

// reason describes a failed attempt for the retry log.
func reason(resp *http.Response, err error) string {
	if err != nil {
		return redact.String(err.Error())
	}
	return "HTTP " + strconv.Itoa(resp.StatusCode)
}
