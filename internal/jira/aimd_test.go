package jira

import (
	"testing"
	"time"
)

// TestAIMD: the controller's contract, step by step on a fake clock: a
// 429 halves the rate once per window (not below the floor), Retry-After
// holds the recovery back, each clean window adds one step up to the
// configured rate, and the burst is capped by the rate once a 429 was
// seen.
func TestAIMD(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	type step struct {
		at      time.Duration // since t0
		refused bool
		wait    time.Duration // Retry-After of a refusal
		rate    float64       // after the step
		burst   int           // burst(20) after the step
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"at max until refused", []step{
			{0, false, 0, 10, 20}, {5 * time.Second, false, 0, 10, 20}}},
		{"halved once per window", []step{
			{0, true, 0, 5, 5}, {100 * time.Millisecond, true, 0, 5, 5}, {900 * time.Millisecond, true, 0, 5, 5},
			{time.Second, true, 0, 2.5, 2}}},
		{"bounded below", []step{
			{0, true, 0, 5, 5}, {time.Second, true, 0, 2.5, 2}, {2 * time.Second, true, 0, 1.25, 1},
			{3 * time.Second, true, 0, 0.625, 1}, {4 * time.Second, true, 0, 0.625, 1}}},
		{"additive increase per clean window up to max", []step{
			{0, true, 0, 5, 5}, {500 * time.Millisecond, false, 0, 5, 5}, {time.Second, false, 0, 5.5, 5},
			{1500 * time.Millisecond, false, 0, 5.5, 5}, {2 * time.Second, false, 0, 6, 6},
			{20 * time.Second, false, 0, 6.5, 6}, {21 * time.Second, false, 0, 7, 7}, {22 * time.Second, false, 0, 7.5, 7},
			{23 * time.Second, false, 0, 8, 8}, {24 * time.Second, false, 0, 8.5, 8}, {25 * time.Second, false, 0, 9, 9},
			{26 * time.Second, false, 0, 9.5, 9}, {27 * time.Second, false, 0, 10, 10}, {28 * time.Second, false, 0, 10, 10}}},
		{"Retry-After holds the recovery", []step{
			{0, true, 3 * time.Second, 5, 5}, {2 * time.Second, false, 0, 5, 5}, {3500 * time.Millisecond, false, 0, 5, 5},
			{4 * time.Second, false, 0, 5.5, 5}}},
		{"a refusal restarts the window", []step{
			{0, true, 0, 5, 5}, {900 * time.Millisecond, false, 0, 5, 5}, {1200 * time.Millisecond, true, 0, 2.5, 2},
			{2 * time.Second, false, 0, 2.5, 2}, {2200 * time.Millisecond, false, 0, 3, 3}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAIMD(10)
			for i, s := range tc.steps {
				now := t0.Add(s.at)
				if s.refused {
					a.refused(now, s.wait)
				} else {
					a.ok(now)
				}
				if a.Rate() != s.rate || a.burst(20) != s.burst {
					t.Fatalf("step %d (%s, refused %v): rate %v burst %d, want %v %d", i, s.at, s.refused, a.Rate(), a.burst(20), s.rate, s.burst)
				}
			}
		})
	}
}
