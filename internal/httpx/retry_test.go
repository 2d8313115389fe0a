package httpx

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// fakeClock is a clock that Sleep advances.
type fakeClock struct {
	now   time.Time
	waits []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func TestRetryDo(t *testing.T) {
	fail := errors.New("boom")
	retry := Outcome{Retry: true, Reason: "HTTP 503"}
	server := func(d time.Duration) Outcome { return Outcome{Retry: true, Wait: d, HasWait: true, Reason: "HTTP 429"} }
	tests := []struct {
		name     string
		policy   Retry
		outcomes []Outcome // one per failing attempt; after them the attempt succeeds
		stop     Stop
		attempts int
		waits    []time.Duration
	}{
		{"success at once", Retry{MaxAttempts: 3}, nil, StopDone, 1, nil},
		{"permanent", Retry{MaxAttempts: 3}, []Outcome{{Reason: "HTTP 404"}}, StopPermanent, 1, nil},
		{"backoff doubles up to the cap", Retry{MaxAttempts: 5, BaseBackoff: time.Second, MaxBackoff: 3 * time.Second},
			[]Outcome{retry, retry, retry}, StopDone, 4, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}},
		{"attempts exhausted", Retry{MaxAttempts: 2, BaseBackoff: time.Second}, []Outcome{retry, retry, retry}, StopAttempts, 2,
			[]time.Duration{time.Second}},
		{"server wait wins over backoff", Retry{MaxAttempts: 3, BaseBackoff: time.Second, MaxServerWait: time.Minute},
			[]Outcome{server(7 * time.Second)}, StopDone, 2, []time.Duration{7 * time.Second}},
		{"server wait too long", Retry{MaxAttempts: 3, MaxServerWait: time.Minute}, []Outcome{server(time.Hour)}, StopWaitTooLong, 1, nil},
		{"budget ends the retries", Retry{MaxAttempts: 10, BaseBackoff: 4 * time.Second, MaxBackoff: 4 * time.Second, Budget: 10 * time.Second},
			[]Outcome{retry, retry, retry, retry}, StopBudget, 3, []time.Duration{4 * time.Second, 4 * time.Second}},
		{"no retries by default", Retry{}, []Outcome{retry}, StopAttempts, 1, nil},
		{"full jitter", Retry{MaxAttempts: 2, BaseBackoff: 8 * time.Second, Rand: func(n int64) int64 { return n / 4 }},
			[]Outcome{retry}, StopDone, 2, []time.Duration{2 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := &fakeClock{now: time.Unix(1e9, 0)}
			var infos []RetryInfo
			p := tc.policy
			p.Sleep, p.Now = clk.Sleep, clk.Now
			p.OnRetry = func(i RetryInfo) { infos = append(infos, i) }
			res, err := p.Do(context.Background(), func(_ context.Context, n int) (Outcome, error) {
				if n <= len(tc.outcomes) {
					return tc.outcomes[n-1], fail
				}
				return Outcome{}, nil
			})
			if res.Stop != tc.stop || res.Attempts != tc.attempts || (err == nil) != (tc.stop == StopDone) {
				t.Fatalf("Do = %+v, %v; want stop %v after %d attempts", res, err, tc.stop, tc.attempts)
			}
			if !slices.Equal(clk.waits, tc.waits) {
				t.Errorf("waits = %v, want %v", clk.waits, tc.waits)
			}
			if len(infos) != len(tc.waits) {
				t.Fatalf("OnRetry calls = %+v, want %d", infos, len(tc.waits))
			}
			for i, info := range infos {
				if info.Attempt != i+1 || info.Wait != tc.waits[i] || info.Reason != tc.outcomes[i].Reason {
					t.Errorf("OnRetry[%d] = %+v", i, info)
				}
			}
		})
	}
}

func TestRetryDoStopsWhenTheWaitIsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := Retry{MaxAttempts: 5, BaseBackoff: time.Hour, Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return Sleep(ctx, d)
	}}
	calls := 0
	res, err := p.Do(ctx, func(context.Context, int) (Outcome, error) {
		calls++
		return Outcome{Retry: true}, errors.New("503")
	})
	if calls != 1 || res.Stop != StopInterrupted || !errors.Is(res.SleepErr, context.Canceled) || err == nil {
		t.Fatalf("calls %d, result %+v, err %v", calls, res, err)
	}
}
