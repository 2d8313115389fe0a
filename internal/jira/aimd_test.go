package jira

import (
	"testing"
	"time"
)

// TestAIMD: the controller's contract, step by step on a fake clock: a
// 429 halves the rate once per window (not below the floor), Retry-After
// holds the recovery back, each clean window adds one step up to the
// configured rate, and once a 429 was seen the burst is 1.
func TestAIMD(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	type step struct {
		at      time.Duration // since t0
		refused bool
		wait    time.Duration // Retry-After of a refusal
		rate    float64       // after the step
		burst   int           // burst(20) after the step
	}
	recovery := []step{{0, true, 0, 5, 1}, {500 * time.Millisecond, false, 0, 5, 1}}
	for i := 1; i <= 21; i++ { // one step per clean second, then stays at max, one call at a time
		recovery = append(recovery, step{time.Duration(i) * time.Second, false, 0, min(5+0.25*float64(i), 10), 1})
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"at max until refused", []step{
			{0, false, 0, 10, 20}, {5 * time.Second, false, 0, 10, 20}}},
		{"halved once per window", []step{
			{0, true, 0, 5, 1}, {100 * time.Millisecond, true, 0, 5, 1}, {900 * time.Millisecond, true, 0, 5, 1},
			{time.Second, true, 0, 2.5, 1}}},
		{"bounded below", []step{
			{0, true, 0, 5, 1}, {time.Second, true, 0, 2.5, 1}, {2 * time.Second, true, 0, 1.25, 1},
			{3 * time.Second, true, 0, 0.625, 1}, {4 * time.Second, true, 0, 0.625, 1}}},
		{"additive increase per clean window up to max", recovery},
		{"one step per window however long", []step{
			{0, true, 0, 5, 1}, {20 * time.Second, false, 0, 5.25, 1}, {20500 * time.Millisecond, false, 0, 5.25, 1}}},
		{"Retry-After holds the recovery", []step{
			{0, true, 3 * time.Second, 5, 1}, {2 * time.Second, false, 0, 5, 1}, {3500 * time.Millisecond, false, 0, 5, 1},
			{4 * time.Second, false, 0, 5.25, 1}}},
		{"a refusal restarts the window", []step{
			{0, true, 0, 5, 1}, {900 * time.Millisecond, false, 0, 5, 1}, {1200 * time.Millisecond, true, 0, 2.5, 1},
			{2 * time.Second, false, 0, 2.5, 1}, {2200 * time.Millisecond, false, 0, 2.75, 1}}},
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
