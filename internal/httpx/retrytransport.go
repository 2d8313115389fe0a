package httpx

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/fullsend-dev/fullsend/internal/redact"
)

// retryTransport retries attempts under policy as classify allows. When
// the retries end on an answer, that answer is returned as is.
type retryTransport struct {
	next     http.RoundTripper
	policy   Retry
	classify Classifier
}

// errAnswer marks an answer the classifier wants retried.
var errAnswer = errors.New("retryable answer")

func (t retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var last *http.Response
	_, err := t.policy.Do(req.Context(), func(ctx context.Context, n int) (Outcome, error) {
		discard(last)
		last = nil
		r, err := replay(req, n)
		if err != nil {
			return Outcome{}, err
		}
		resp, err := t.next.RoundTrip(r)
		out := t.classify(r, resp, err)
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
func (t retryTransport) CloseIdleConnections() { closeIdle(t.next) }

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
