package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

// step is one scripted answer: a status with headers, or a dropped
// connection.
type step struct {
	status  int
	headers map[string]string
	body    string
	drop    bool
}

func scripted(t *testing.T, steps []step) (*gogithub.Client, func() int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		s := step{status: 200, body: `{"default_branch":"main"}`}
		if i < len(steps) {
			s = steps[i]
		}
		if s.drop {
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
			return
		}
		for k, v := range s.headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(s.status)
		_, _ = w.Write([]byte(s.body))
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, "", ClientOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Client().CloseIdleConnections)
	return c, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

func TestCall(t *testing.T) {
	reset := strconv.FormatInt(time.Now().Add(30*time.Second).Unix(), 10)
	tests := []struct {
		name       string
		steps      []step
		idempotent bool
		maxRetries int
		wantClass  Class // checked when wantErr
		wantErr    bool
		wantStatus int
		calls      int
		waits      []time.Duration
		waitNear   time.Duration // when set, the single wait is within 3s of it
	}{
		{name: "success", calls: 1},
		{name: "202 counts as success", steps: []step{{status: 202}}, calls: 1},
		{name: "5xx retried", steps: []step{{status: 500}, {status: 503}}, calls: 3,
			waits: []time.Duration{time.Millisecond, 2 * time.Millisecond}},
		{name: "5xx with Retry-After", steps: []step{{status: 503, headers: map[string]string{"Retry-After": "4"}}}, calls: 2,
			waits: []time.Duration{4 * time.Second}},
		{name: "404 permanent", steps: []step{{status: 404, body: `{"message":"Not Found"}`}}, calls: 1,
			wantErr: true, wantClass: Permanent, wantStatus: 404},
		{name: "422 permanent", steps: []step{{status: 422, body: `{"message":"No ref found for: x"}`}}, calls: 1,
			wantErr: true, wantClass: Permanent, wantStatus: 422},
		{name: "403 plain is permanent", steps: []step{{status: 403, body: `{"message":"Resource not accessible"}`}}, calls: 1,
			wantErr: true, wantClass: Permanent, wantStatus: 403},
		{name: "403 secondary limit", steps: []step{{status: 403, headers: map[string]string{"Retry-After": "2"},
			body: `{"message":"slow down","documentation_url":"https://docs.github.com/rest#secondary-rate-limits"}`}},
			calls: 2, waits: []time.Duration{2 * time.Second}},
		{name: "403 with Retry-After only", steps: []step{{status: 403, headers: map[string]string{"Retry-After": "1"}}},
			calls: 2, waits: []time.Duration{time.Second}},
		{name: "429 primary limit waits for reset", steps: []step{{status: 429,
			headers: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}}},
			calls: 2, waitNear: 31 * time.Second},
		{name: "retries exhausted", steps: []step{{status: 500}, {status: 500}, {status: 500}}, maxRetries: 2, calls: 3, waits: []time.Duration{time.Millisecond, 2 * time.Millisecond},
			wantErr: true, wantClass: Retryable, wantStatus: 500},
		{name: "dropped after send is ambiguous", steps: []step{{drop: true}}, calls: 1,
			wantErr: true, wantClass: Ambiguous},
		{name: "idempotent retries ambiguous", steps: []step{{drop: true}}, idempotent: true, calls: 2,
			waits: []time.Duration{time.Millisecond}},
		{name: "2xx with undecodable body is permanent", steps: []step{{status: 200, body: "{"}}, calls: 1,
			wantErr: true, wantClass: Permanent, wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, calls := scripted(t, tt.steps)
			var waits []time.Duration
			p := Policy{MaxRetries: tt.maxRetries, BaseBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
				Idempotent: tt.idempotent,
				Sleep:      func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			_, err := Call(context.Background(), p, func(ctx context.Context) (*gogithub.Response, error) {
				_, resp, err := c.Repositories.Get(ctx, "a", "b")
				return resp, err
			})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				var f *Failure
				if !errors.As(err, &f) || f.Class != tt.wantClass || f.Status != tt.wantStatus {
					t.Fatalf("failure = %#v, want class %v status %d", err, tt.wantClass, tt.wantStatus)
				}
				if got := errors.Is(err, ErrAmbiguous); got != (tt.wantClass == Ambiguous) {
					t.Errorf("errors.Is(ErrAmbiguous) = %v", got)
				}
			}
			if calls() != tt.calls {
				t.Errorf("calls = %d, want %d", calls(), tt.calls)
			}
			if tt.waitNear > 0 {
				if len(waits) != 1 || waits[0] < tt.waitNear-3*time.Second || waits[0] > tt.waitNear+time.Second {
					t.Errorf("waits = %v, want one near %v", waits, tt.waitNear)
				}
			} else if !slices.Equal(waits, tt.waits) {
				t.Errorf("waits = %v, want %v", waits, tt.waits)
			}
		})
	}
}

func TestCallStopsWhenContextEnds(t *testing.T) {
	c, calls := scripted(t, []step{{status: 500}, {status: 500}})
	ctx, cancel := context.WithCancel(context.Background())
	p := Policy{BaseBackoff: time.Hour, Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return httpx.Sleep(ctx, d)
	}}
	_, err := Call(ctx, p, func(ctx context.Context) (*gogithub.Response, error) {
		_, resp, err := c.Repositories.Get(ctx, "a", "b")
		return resp, err
	})
	if err == nil || !strings.Contains(err.Error(), "gave up waiting") || calls() != 1 {
		t.Errorf("err = %v after %d calls", err, calls())
	}
}

func TestClassifyTransportErrors(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	boom := fmt.Errorf("dial tcp: connection refused")
	tests := []struct {
		ctx   context.Context
		wrote bool
		want  Class
	}{
		{context.Background(), false, Retryable},
		{context.Background(), true, Ambiguous},
		{canceled, false, Permanent},
		{canceled, true, Ambiguous},
	}
	for _, tt := range tests {
		if got := Classify(tt.ctx, nil, boom, tt.wrote).Class; got != tt.want {
			t.Errorf("Classify(wrote=%v, ctx err %v) = %v, want %v", tt.wrote, tt.ctx.Err(), got, tt.want)
		}
	}
}
