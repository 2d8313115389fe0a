package gitlab

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

func TestRetryPolicy(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	p := retryPolicy{now: func() time.Time { return now }}
	resp := func(code int, h ...string) *http.Response {
		r := &http.Response{StatusCode: code, Header: http.Header{}}
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		return r
	}
	read, write := context.Background(), WriteCtx(context.Background())
	dial := &net.OpError{Op: "dial", Err: errors.New("connection refused")}
	reset := &net.OpError{Op: "read", Err: errors.New("connection reset")}
	tests := []struct {
		name string
		ctx  context.Context
		resp *http.Response
		err  error
		want bool
		wait time.Duration // the wait before the retry, when positive
	}{
		{"read 503", read, resp(503), nil, true, 0},
		{"write 503", write, resp(503), nil, false, 0},
		{"write 429 retry-after", write, resp(429, "Retry-After", "7"), nil, true, 7 * time.Second},
		{"429 reset header", read, resp(429, "RateLimit-Reset", "1700000005"), nil, true, 5 * time.Second},
		// GitLab's clock an hour ahead of the host's: the reset is 5 s
		// after the answer's Date.
		{"429 reset on GitLab's clock", read, resp(429, "RateLimit-Reset", "1700003605", "Date", time.Unix(1_700_003_600, 0).UTC().Format(http.TimeFormat)), nil, true, 5 * time.Second},
		{"429 too long", read, resp(429, "Retry-After", "3600"), nil, false, 0},
		{"read 404", read, resp(404), nil, false, 0},
		{"read 501", read, resp(501), nil, false, 0},
		{"read reset connection", read, nil, reset, true, 0},
		{"write reset connection", write, nil, reset, false, 0},
		{"write never connected", write, nil, dial, true, 0},
	}
	for _, tc := range tests {
		req := httptest.NewRequest("GET", "/", nil).WithContext(tc.ctx)
		var waits []time.Duration
		pol := httpx.Retry{MaxAttempts: 2, BaseBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxServerWait: time.Minute,
			Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
		res, _ := pol.Do(tc.ctx, func(_ context.Context, n int) (httpx.Outcome, error) {
			if n > 1 {
				return httpx.Outcome{}, nil
			}
			return p.classify(req, tc.resp, tc.err, true), errors.New("failed")
		})
		if got := res.Attempts == 2; got != tc.want {
			t.Errorf("%s: retry = %v, want %v", tc.name, got, tc.want)
		}
		if tc.wait > 0 && (len(waits) != 1 || waits[0] != tc.wait) {
			t.Errorf("%s: waits = %v, want %v", tc.name, waits, tc.wait)
		}
	}
}

func FuzzServerWait(f *testing.F) {
	for _, s := range []string{"", "0", "5", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", "99999999999999999999"} {
		f.Add(s, s)
	}
	p := retryPolicy{now: time.Now}
	f.Fuzz(func(t *testing.T, after, reset string) {
		r := &http.Response{StatusCode: 429, Header: http.Header{}}
		r.Header.Set("Retry-After", after)
		r.Header.Set("RateLimit-Reset", reset)
		if d, ok := p.serverWait(r); ok && d < 0 {
			t.Fatalf("negative wait %v for %q/%q", d, after, reset)
		}
	})
}
