package jira_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// worldClock is the fake time shared by the emulator and the client:
// the client's sleeps move it on and record what was waited.
type worldClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *worldClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *worldClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *worldClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

// budgetPair is an emulator with a budget of 10 calls per second and a
// client on the same fake clock.
func budgetPair(t *testing.T) (*jirasim.Server, *jira.Client, *worldClock) {
	t.Helper()
	clk := &worldClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s, c, _ := newPair(t, jirasim.Options{Now: clk.Now, RateBudget: &jirasim.RateBudget{Points: 10, Window: time.Second}},
		func(o *jira.Options) { o.Now, o.Sleep = clk.Now, clk.Sleep })
	return s, c, clk
}

// A script of 60 calls 20 ms apart (world time) spends a budget of 10 per
// second six times over. Unpaced, the emulator refuses most of them;
// the client, paced by the headers, is never refused.
func TestPacedByHeadersNeverRefused(t *testing.T) {
	s, c, clk := budgetPair(t)
	unpaced := 0
	for range 60 {
		req := httptest.NewRequest("GET", "/rest/api/3/myself", nil)
		req.Header.Set("Authorization", "Bearer x")
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if w.Code == http.StatusTooManyRequests {
			unpaced++
		}
		clk.Advance(20 * time.Millisecond)
	}
	if unpaced < 30 {
		t.Fatalf("the script is not a test: only %d of 60 unpaced calls were refused", unpaced)
	}
	clk.Advance(time.Second)
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	refusedBefore := s.RateLimited()
	start := clk.Now()
	for i := range 60 {
		if _, _, err := c.GetProperty(context.Background(), key, "p"); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		clk.Advance(20 * time.Millisecond)
	}
	if n := s.RateLimited() - refusedBefore; n != 0 {
		t.Errorf("paced client was refused %d times", n)
	}
	if n := c.CallsTotal(); n != 60 {
		t.Errorf("calls = %d, want 60 (no retries)", n)
	}
	// 60 calls at 10/s need at least 5 full windows.
	if took := clk.Now().Sub(start); took < 5*time.Second || took > 8*time.Second {
		t.Errorf("60 calls took %s of world time, want 5–8s", took)
	}
	b := c.Budget()
	if !b.Known || b.Limit != 10 || b.Remaining < 0 || b.Remaining > 10 || b.Reset.IsZero() {
		t.Errorf("budget snapshot = %+v", b)
	}
}

// A 429 is retried after Retry-After, or after X-RateLimit-Reset when
// Retry-After is missing; Remaining 0 pauses the next call until Reset.
func TestRetryAfterAndResetHonoured(t *testing.T) {
	tests := []struct {
		name     string
		hdr      map[string]string
		status   int
		wantWait time.Duration
	}{
		{"retry-after", map[string]string{"Retry-After": "3", "X-RateLimit-Reset": "2026-03-01T12:00:09Z"}, 429, 3 * time.Second},
		{"reset without retry-after", map[string]string{"X-RateLimit-Reset": "2026-03-01T12:00:05Z"}, 429, 5 * time.Second},
		{"reset at minute precision", map[string]string{"X-RateLimit-Reset": "2026-03-01T12:01Z"}, 429, time.Minute},
		{"remaining 0 pauses until reset", map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "10",
			"X-RateLimit-Reset": "2026-03-01T12:00:04Z"}, 0, 4 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := &worldClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			s, c, _ := newPair(t, jirasim.Options{Now: clk.Now}, func(o *jira.Options) { o.Now, o.Sleep = clk.Now, clk.Sleep })
			s.InjectFault(jirasim.Fault{Status: tc.status, Header: tc.hdr})
			key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
			if _, _, err := c.GetProperty(context.Background(), key, "p"); err != nil && tc.status == 0 {
				t.Fatal(err)
			}
			if tc.status == 0 { // the pause applies to the next call
				if _, _, err := c.GetProperty(context.Background(), key, "p"); err != nil {
					t.Fatal(err)
				}
			}
			if len(clk.waits) == 0 || clk.waits[0] != tc.wantWait {
				t.Errorf("waits = %v, want first %s", clk.waits, tc.wantWait)
			}
		})
	}
}

// The retry log names the limit Jira says was hit.
func TestRetryLogNamesRateLimitReason(t *testing.T) {
	var buf bytes.Buffer
	clk := &worldClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s, c, _ := newPair(t, jirasim.Options{Now: clk.Now}, func(o *jira.Options) {
		o.Now, o.Sleep, o.Logger = clk.Now, clk.Sleep, slog.New(slog.NewTextHandler(&buf, nil))
	})
	s.InjectFault(jirasim.Fault{Status: 429, RetryAfter: time.Second, Header: map[string]string{"RateLimit-Reason": "jira-burst-based"}})
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	if _, _, err := c.GetProperty(context.Background(), key, "p"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `reason="HTTP 429 (jira-burst-based)"`) {
		t.Errorf("retry log does not name the limit:\n%s", buf.String())
	}
}

// Paced clients on one account share a budget of 20 calls per second:
// they take turns, a call each, gap of world time apart (4 clients 10 ms
// apart demand 100 calls per second). Each sees only the headers; from
// how fast Remaining falls between its own calls it estimates its share
// and spreads that share of the remaining points until the reset. Up to
// 4 clients, no call is refused (4 clients 10 ms apart: with pacing only
// near the limit 8 of 208 calls were refused; planning for the whole
// budget instead of a share, 6 of 206). 8 clients make 2 or 3 calls per
// window each, too few for the estimate to settle within the window: a
// few calls are refused when the window runs out, fewer than 10 %.
func TestPacedClientsShareABudget(t *testing.T) {
	tests := []struct {
		clients    int
		gap        time.Duration
		maxRefused int
		maxTook    time.Duration
	}{
		{2, 10 * time.Millisecond, 0, 11 * time.Second},
		{4, 10 * time.Millisecond, 0, 11 * time.Second},
		{4, 2 * time.Millisecond, 0, 11 * time.Second},
		{8, 25 * time.Millisecond, 20, 20 * time.Second},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d clients %s apart", tc.clients, tc.gap), func(t *testing.T) {
			calls, refused, took := shareBudget(t, tc.clients, tc.gap, 200)
			t.Logf("%d calls, %d refused, %s of world time", calls, refused, took)
			if refused > tc.maxRefused {
				t.Errorf("%d of %d calls refused, want at most %d", refused, calls, tc.maxRefused)
			}
			// 200 calls at 20 per second need 10 s.
			if took > tc.maxTook {
				t.Errorf("200 calls took %s of world time, want at most %s", took, tc.maxTook)
			}
		})
	}
}

// shareBudget makes n calls, taking turns between clients, gap apart, and
// returns the calls sent (retries included), the calls refused and the
// world time they took.
func shareBudget(t *testing.T, clients int, gap time.Duration, n int) (calls, refused int, took time.Duration) {
	clk := &worldClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := jirasim.New(jirasim.Options{Now: clk.Now, RateBudget: &jirasim.RateBudget{Points: 20, Window: time.Second}})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	var cs []*jira.Client
	for range clients {
		c, err := jira.New(jira.Options{BaseURL: base, Email: "bot@example.com", Token: "tok-123", RPS: 50, Burst: 5,
			Now: clk.Now, Sleep: clk.Sleep, Rand: func(n int64) int64 { return n / 2 }})
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	start := clk.Now()
	for i := range n {
		if _, _, err := cs[i%len(cs)].GetProperty(context.Background(), key, "p"); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		clk.Advance(gap)
	}
	for _, c := range cs {
		calls += c.CallsTotal()
	}
	return calls, s.RateLimited(), clk.Now().Sub(start)
}

// TestPacedByRefusals: Jira's burst limit (4 calls per rolling second
// here) moves no X-RateLimit-* header, so only the 429s themselves can
// pace the client. A client configured at 10 calls/s with a burst of 20
// making 300 calls back to back is refused at most 2 % of its calls
// (halving its rate on a 429, then recovering step by step), and every
// call succeeds. (Slowed to a quarter for 30 s, then back at full rate
// and burst, it was refused about 4 % of them.)
func TestPacedByRefusals(t *testing.T) {
	clk := &worldClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s, c, _ := newPair(t, jirasim.Options{Now: clk.Now, BurstLimit: 4},
		func(o *jira.Options) { o.Now, o.Sleep, o.RPS, o.Burst = clk.Now, clk.Sleep, 10, 20 })
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	const calls = 300
	for i := range calls {
		if _, _, err := c.GetProperty(context.Background(), key, "p"); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		clk.Advance(10 * time.Millisecond) // the caller's own work
	}
	refused := s.RateLimited()
	t.Logf("%d calls against a burst limit of 4/s: %d refused, %s of world time", calls, refused, clk.Now().Sub(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))
	if refused > calls/50 {
		t.Fatalf("%d of %d calls refused, want at most 2 %%", refused, calls)
	}
	if !c.Slowed() {
		t.Error("a client refused by the burst limit reports its full rate")
	}
}
