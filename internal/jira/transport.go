package jira

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/redact"
)

// call describes one REST call. template names the endpoint for counting
// and errors ("GET /rest/api/3/issue/{issueIdOrKey}/changelog"); path is
// the concrete, already escaped path.
type call struct {
	method   string
	template string
	path     string
	query    url.Values
	body     any
	// retry marks calls that are safe to repeat: GET, PUT, DELETE and the
	// read-only POSTs (search, changelog bulk fetch).
	retry bool
}

func (cl call) endpoint() string { return cl.method + " " + cl.template }

// do performs cl with rate limiting and retries under the client's
// httpx.Retry policy. It returns the final status and body; any status
// >= 400 is returned as an *APIError.
func (c *Client) do(ctx context.Context, cl call) (int, []byte, error) {
	var payload []byte
	if cl.body != nil {
		b, err := json.Marshal(cl.body)
		if err != nil {
			return 0, nil, fmt.Errorf("jira %s: encoding request: %v", cl.endpoint(), err)
		}
		payload = b
	}
	pol := c.retry
	if !cl.retry {
		pol.MaxAttempts = 1
	}
	var status int
	var body []byte
	pol.OnRetry = func(i httpx.RetryInfo) {
		if status == http.StatusTooManyRequests {
			c.countWait()
		}
		c.log.Info("jira request failed; retrying", "endpoint", cl.endpoint(), "attempt", i.Attempt, "wait", i.Wait, "reason", i.Reason)
	}
	gate := gateOf(ctx)
	if gate != nil {
		pol.Sleep = gateSleep(gate, pol.Sleep)
	}
	effect := false // an attempt may have taken effect
	res, err := pol.Do(ctx, func(ctx context.Context, _ int) (httpx.Outcome, error) {
		var out httpx.Outcome
		var err error
		status, body, out, err = c.try(ctx, cl, payload)
		effect = effect || mayHaveTakenEffect(status, err)
		return out, err
	})
	var apiErr *APIError
	var ge *gateError
	switch {
	case err == nil:
		return status, body, nil
	case errors.As(err, &ge) || errors.As(res.SleepErr, &ge):
		return status, body, gated(cl, ge, effect, err)
	case res.Stop == httpx.StopInterrupted:
		return 0, nil, fmt.Errorf("jira %s: %w", cl.endpoint(), res.SleepErr)
	case res.Stop == httpx.StopWaitTooLong && errors.As(err, &apiErr):
		apiErr.Messages = append(apiErr.Messages, fmt.Sprintf("Retry-After %s exceeds the %s the client waits", res.Wait, c.opts.MaxRetryAfter))
	case res.Stop == httpx.StopBudget:
		err = fmt.Errorf("%w (gave up: the next retry would exceed the %s retry budget)", err, c.opts.RetryBudget)
	}
	return status, body, err
}

// try makes one attempt of cl and classifies its
// failure: what Jira answered with a retryable status (honouring
// Retry-After), or a transport error that may be repeated. A complete but
// unusable answer, a cross-origin redirect and an ended context are final.
func (c *Client) try(ctx context.Context, cl call, payload []byte) (int, []byte, httpx.Outcome, error) {
	status, hdr, body, err := c.attempt(ctx, cl, payload)
	if err != nil {
		if ge := (*gateError)(nil); errors.As(err, &ge) {
			return 0, nil, httpx.Outcome{}, ge // not sent: final
		}
		if ctx.Err() != nil {
			return 0, nil, httpx.Outcome{}, fmt.Errorf("jira %s: %w", cl.endpoint(), ctx.Err())
		}
		var bad *badResponse
		final := errors.As(err, &bad) || errors.Is(err, httpx.ErrCrossOriginRedirect)
		err = fmt.Errorf("jira %s: %s", cl.endpoint(), redact.String(err.Error()))
		return 0, nil, httpx.Outcome{Retry: !final, Reason: err.Error()}, err
	}
	if status < 400 {
		return status, body, httpx.Outcome{}, nil
	}
	out := httpx.Outcome{Retry: retryableStatus(status), Reason: fmt.Sprintf("HTTP %d", status)}
	if r := hdr.Get(hdrReason); r != "" {
		out.Reason += " (" + httpx.Snippet([]byte(r), 40) + ")" // which limit: jira-burst-based, …
	}
	// Jira sends Retry-After with 429 and with some transient 5xx answers
	// (503 above all); it is honoured on any retryable status. A 429
	// without it waits for X-RateLimit-Reset.
	out.Wait, out.HasWait = httpx.RetryAfter(hdr.Get("Retry-After"), c.siteNow())
	if !out.HasWait && status == http.StatusTooManyRequests {
		if reset, ok := parseReset(hdr.Get(hdrReset)); ok {
			out.Wait, out.HasWait = max(reset.Sub(c.siteNow()), 0), true
		}
	}
	return status, body, out, &APIError{Endpoint: cl.endpoint(), Status: status, Messages: errorMessages(body)}
}

func retryableStatus(s int) bool {
	switch s {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// attempt makes one HTTP request. Errors are transport errors or a body
// over the size cap; HTTP statuses are returned, not turned into errors.
func (c *Client) attempt(ctx context.Context, cl call, payload []byte) (int, http.Header, []byte, error) {
	target := c.base.Scheme + "://" + c.base.Host + c.base.EscapedPath() + cl.path
	if q := cl.query.Encode(); q != "" {
		target += "?" + q
	}
	var rdr *bytes.Reader
	if payload != nil {
		rdr = bytes.NewReader(payload)
	}
	// The duration recorded starts when the request leaves the limiter,
	// as the first connection is sought.
	start := newStart()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GetConn: func(string) { start.move() }})
	var req *http.Request
	var err error
	if rdr != nil {
		req, err = http.NewRequestWithContext(ctx, cl.method, target, rdr)
	} else {
		req, err = http.NewRequestWithContext(ctx, cl.method, target, nil)
	}
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "fullsend")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.record(cl.endpoint(), 0, start.since())
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body) // capped by the transport
	c.record(cl.endpoint(), resp.StatusCode, start.since())
	c.observeRateHeaders(resp.StatusCode, resp.Header)
	if errors.Is(err, httpx.ErrTooLarge) {
		return 0, nil, nil, &badResponse{fmt.Sprintf("HTTP %d: %v", resp.StatusCode, err)}
	}
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading HTTP %d response: %w", resp.StatusCode, err)
	}
	if resp.StatusCode < 300 && len(body) > 0 {
		if err := checkJSONContentType(resp.Header.Get("Content-Type"), body); err != nil {
			return 0, nil, nil, &badResponse{err.Error()}
		}
	}
	return resp.StatusCode, resp.Header, body, nil
}

// startTime is a start time that a trace callback may move once.
type startTime struct {
	ns    atomic.Int64
	moved atomic.Bool
}

func newStart() *startTime {
	s := &startTime{}
	s.ns.Store(time.Now().UnixNano())
	return s
}

func (s *startTime) move() {
	if !s.moved.Swap(true) {
		s.ns.Store(time.Now().UnixNano())
	}
}

func (s *startTime) since() time.Duration { return time.Since(time.Unix(0, s.ns.Load())) }

// badResponse is a complete answer that cannot be used (too large, not
// JSON); it is not retried.
type badResponse struct{ msg string }

func (e *badResponse) Error() string { return e.msg }

// checkJSONContentType rejects a success response that is not JSON, such
// as an HTML login page served with 200.
func checkJSONContentType(ct string, body []byte) error {
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	if ct == "" {
		ct = "none"
	}
	return fmt.Errorf("unexpected content type %s (want application/json; a login page or proxy?): %s", ct, httpx.Snippet(body, 80))
}

// decode unmarshals a success body, naming the endpoint on failure.
func decode(cl call, body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("jira %s: empty response body", cl.endpoint())
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("jira %s: malformed response: %v (body starts %q)", cl.endpoint(), err, httpx.Snippet(body, 60))
	}
	return nil
}

func snippet(b []byte) string { return httpx.Snippet(b, 200) }

// pathEscape escapes one path segment.
func pathEscape(s string) string { return url.PathEscape(s) }
