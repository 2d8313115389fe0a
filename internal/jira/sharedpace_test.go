package jira

import (
	"testing"
	"time"
)

// TestAdoptRate: a ceiling another client of the site published lowers
// this client's (grown by the clean windows since it was held), sends one
// call at a time, and never raises it; a stale, future or empty one is
// ignored. SharedRate publishes only a ceiling a 429 taught.
func TestAdoptRate(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	type adopt struct {
		rate  float64
		age   time.Duration
		want  float64 // the ceiling after
		burst int
	}
	for _, tc := range []struct {
		name  string
		steps []adopt
	}{
		// RPS 10: step 0.25 a second, floor 0.625.
		{name: "fresh lowers", steps: []adopt{{rate: 2.5, want: 2.5, burst: 1}}},
		{name: "grown by its age", steps: []adopt{{rate: 2, age: 4 * time.Second, want: 3, burst: 1}}},
		{name: "never raises", steps: []adopt{{rate: 2.5, want: 2.5, burst: 1}, {rate: 5, want: 2.5, burst: 1}}},
		{name: "grown past the own ceiling: kept", steps: []adopt{{rate: 2.5, want: 2.5, burst: 1}, {rate: 2, age: 10 * time.Second, want: 2.5, burst: 1}}},
		{name: "stale", steps: []adopt{{rate: 1, age: PaceMemory, want: 10, burst: 20}}},
		{name: "from the future", steps: []adopt{{rate: 1, age: -time.Second, want: 10, burst: 20}}},
		{name: "zero", steps: []adopt{{rate: 0, want: 10, burst: 20}}},
		{name: "below the floor", steps: []adopt{{rate: 0.01, want: 0.625, burst: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(Options{BaseURL: "http://127.0.0.1:1", Token: "tok", RPS: 10, Burst: 20, Now: func() time.Time { return t0 }})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := c.SharedRate(); ok {
				t.Fatal("SharedRate ok before any 429")
			}
			for i, s := range tc.steps {
				c.AdoptRate(s.rate, s.age)
				if got := float64(c.limiter.Limit()); got != s.want || c.aimd.Rate() != s.want {
					t.Errorf("step %d: limiter %v, ceiling %v, want %v", i, got, c.aimd.Rate(), s.want)
				}
				if got := c.limiter.Burst(); got != s.burst {
					t.Errorf("step %d: burst %d, want %d", i, got, s.burst)
				}
				if got := c.RateLowered(); got != (s.want < 10) {
					t.Errorf("step %d: RateLowered = %v at %v", i, got, s.want)
				}
			}
			last := tc.steps[len(tc.steps)-1]
			r, ok := c.SharedRate()
			if adopted := last.burst == 1; ok != adopted || (ok && r != last.want) {
				t.Errorf("SharedRate = %v, %v; want %v, %v", r, ok, last.want, adopted)
			}
		})
	}
}
