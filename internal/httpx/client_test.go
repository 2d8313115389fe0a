package httpx

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/redact"
)

func get(t *testing.T, c *http.Client, url string) (int, string, error) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader("payload"))
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestBodyCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 10+len(r.URL.Path)-1))
	}))
	defer srv.Close()
	c := NewClient(Options{MaxBody: 10})
	defer c.CloseIdleConnections()
	if _, body, err := get(t, c, srv.URL+"/"); err != nil || len(body) != 10 {
		t.Fatalf("at the cap: %d bytes, %v", len(body), err)
	}
	_, _, err := get(t, c, srv.URL+"/xx")
	var tl *TooLargeError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &tl) || !strings.Contains(err.Error(), "response body over 10 bytes") {
		t.Fatalf("over the cap: %v", err)
	}
}

func TestTimeoutIsPerAttempt(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers: only the client's deadline ends the request
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c := NewClient(Options{Timeout: 20 * time.Millisecond})
	defer c.CloseIdleConnections()
	if _, _, err := get(t, c, srv.URL); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline error", err)
	}
}

func TestRetryTransport(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) != "payload" {
			t.Errorf("attempt %d body %q", calls.Load(), b)
		}
		if calls.Add(1) < 3 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "done")
	}))
	defer srv.Close()
	clk := &fakeClock{now: time.Unix(1e9, 0)}
	var infos []RetryInfo
	classify := func(_ *http.Request, resp *http.Response, err error, _ bool) Outcome {
		if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
			return Outcome{}
		}
		d, ok := RetryAfter(resp.Header.Get("Retry-After"), clk.Now())
		return Outcome{Retry: true, Wait: d, HasWait: ok}
	}
	pol := &Retry{MaxAttempts: 3, Sleep: clk.Sleep, Now: clk.Now, OnRetry: func(i RetryInfo) { infos = append(infos, i) }}
	c := NewClient(Options{Retry: pol, Classify: classify})
	defer c.CloseIdleConnections()
	status, body, err := get(t, c, srv.URL)
	if err != nil || status != 200 || body != "done" || calls.Load() != 3 {
		t.Fatalf("got %d %q %v after %d calls", status, body, err, calls.Load())
	}
	if len(infos) != 2 || infos[1] != (RetryInfo{Attempt: 2, Wait: 2 * time.Second, Reason: "HTTP 503"}) {
		t.Errorf("retries = %+v", infos)
	}
	calls.Store(0)
	pol.MaxAttempts = 2
	c = NewClient(Options{Retry: pol, Classify: classify})
	defer c.CloseIdleConnections()
	if status, _, err := get(t, c, srv.URL); err != nil || status != http.StatusServiceUnavailable || calls.Load() != 2 {
		t.Fatalf("exhausted: status %d err %v after %d calls; want the last answer", status, err, calls.Load())
	}
}

func TestErrorBodiesAreRedacted(t *testing.T) {
	const tok = "echo-me-S3CRET"
	redact.Add(tok)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			_, _ = io.WriteString(w, "ok "+tok) // success bodies are data: untouched
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, "bad credentials: Bearer "+tok)
	}))
	defer srv.Close()
	c := NewClient(Options{})
	defer c.CloseIdleConnections()
	if status, body, err := get(t, c, srv.URL+"/no"); err != nil || status != 401 || body != "bad credentials: Bearer "+redact.Mask {
		t.Fatalf("401 body %q, %v", body, err)
	}
	if _, body, err := get(t, c, srv.URL+"/ok"); err != nil || body != "ok "+tok {
		t.Fatalf("200 body %q, %v", body, err)
	}
}

func TestRetryTransportOverrideAndSent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack() // read the request, then drop it
		_ = conn.Close()
	}))
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close() // nothing listens here: the request is never sent
	defer srv.Close()
	var sent []bool
	classify := func(_ *http.Request, _ *http.Response, err error, s bool) Outcome {
		sent = append(sent, s)
		return Outcome{Retry: err != nil}
	}
	c := NewClient(Options{Retry: &Retry{MaxAttempts: 5}, Classify: classify})
	defer c.CloseIdleConnections()
	for _, tc := range []struct {
		url  string
		sent bool
	}{{srv.URL, true}, {closedURL, false}} {
		sent = nil
		ov := &Override{Retry: Retry{MaxAttempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }}}
		req, _ := http.NewRequestWithContext(WithOverride(context.Background(), ov), "GET", tc.url, nil)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			t.Fatalf("%s: no error", tc.url)
		}
		if ov.Result.Attempts != 2 || ov.Result.Stop != StopAttempts || len(sent) != 2 || sent[0] != tc.sent {
			t.Errorf("%s: result %+v, sent %v; want 2 attempts (the override's), sent=%v", tc.url, ov.Result, sent, tc.sent)
		}
	}
}

type countingLimiter struct {
	waits atomic.Int32
	err   error
}

func (l *countingLimiter) Wait(context.Context) error { l.waits.Add(1); return l.err }

func TestLimiterPacesEveryAttempt(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	lim := &countingLimiter{}
	retry := &Retry{MaxAttempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
	classify := func(_ *http.Request, resp *http.Response, err error, _ bool) Outcome {
		return Outcome{Retry: err == nil}
	}
	c := NewClient(Options{Limiter: lim, Retry: retry, Classify: classify})
	defer c.CloseIdleConnections()
	if status, _, err := get(t, c, srv.URL); err != nil || status != 503 || lim.waits.Load() != 3 || calls.Load() != 3 {
		t.Fatalf("status %d err %v: %d waits for %d attempts, want 3 and 3", status, err, lim.waits.Load(), calls.Load())
	}
	lim.err = context.Canceled
	if _, _, err := get(t, c, srv.URL); !errors.Is(err, context.Canceled) || calls.Load() != 3 {
		t.Fatalf("refusing limiter: err %v, %d calls", err, calls.Load())
	}
}
