package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ErrTooLarge is matched (errors.Is) by every *TooLargeError.
var ErrTooLarge = errors.New("response body too large")

// TooLargeError reports a response body above the client's cap.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("response body over %d bytes (too large: exceeds the client's cap)", e.Limit)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// boundTransport bounds each attempt by timeout (headers and body; zero
// means none) and caps its response body at max bytes (zero means none).
// The deadline lives in the request context and ends when the body is
// read to its end or closed, unlike http.Client.Timeout, which would also
// cover the waits of a retrying layer above.
type boundTransport struct {
	next    http.RoundTripper
	max     int64
	timeout time.Duration
}

func (t boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	cancel := context.CancelFunc(func() {})
	if t.timeout > 0 {
		var ctx context.Context
		ctx, cancel = context.WithTimeout(req.Context(), t.timeout)
		req = req.WithContext(ctx)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		cancel()
		return resp, err
	}
	resp.Body = &boundBody{rc: resp.Body, left: t.max, max: t.max, done: cancel}
	return resp, nil
}

// CloseIdleConnections forwards to the wrapped transport.
func (t boundTransport) CloseIdleConnections() { CloseIdle(t.next) }

// CloseIdle is a wrapping transport's CloseIdleConnections: it forwards
// to rt when rt has one.
func CloseIdle(rt http.RoundTripper) {
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// ReadBody reads resp's body to its end and closes it, leaving in its
// place the bytes read, for the caller above to read again: what a
// transport that checks an answer before its client decodes it needs.
func ReadBody(resp *http.Response) ([]byte, error) {
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// boundBody caps a body and releases the attempt's deadline once the body
// ends, fails or is closed.
type boundBody struct {
	rc        io.ReadCloser
	left, max int64
	done      func()
}

func (b *boundBody) Read(p []byte) (int, error) {
	if b.max > 0 && b.left <= 0 {
		// Probe whether the body really continues beyond the limit.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			b.done()
			return 0, &TooLargeError{Limit: b.max}
		}
		if err != nil {
			b.done()
		}
		return 0, err
	}
	if b.max > 0 && int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if err != nil {
		b.done()
	}
	return n, err
}

func (b *boundBody) Close() error {
	err := b.rc.Close()
	b.done()
	return err
}
