package jira

import (
	"testing"
	"time"
)

// The share of a budget is our calls over the points everyone spent in
// the window, carried into the next window until that one is a sample.
func TestBudgetShare(t *testing.T) {
	w1 := time.Date(2026, 3, 1, 12, 0, 1, 0, time.UTC)
	w2 := w1.Add(time.Second)
	type obs struct {
		rem   int
		reset time.Time
		want  float64
	}
	tests := []struct {
		name  string
		limit int
		seq   []obs
	}{
		{"alone", 20, []obs{{19, w1, 1}, {18, w1, 1}, {17, w1, 1}, {16, w1, 1}, {15, w1, 1}}},
		{"too few points spent to tell", 20, []obs{{18, w1, 1}, {17, w1, 1}}},
		{"one of four", 20, []obs{{16, w1, 0.25}, {12, w1, 0.25}, {8, w1, 0.25}, {4, w1, 0.25}}},
		{"one of two, carried into the next window", 20, []obs{{18, w1, 1}, {16, w1, 0.5}, {14, w1, 0.5},
			{19, w2, 0.5}, {18, w2, 0.5}}},
		{"the next window blends in", 20, []obs{{16, w1, 0.25}, {12, w1, 0.25}, {18, w2, 0.25}, {16, w2, (0.25 + 0.5) / 2}}},
		{"a late answer of a past window changes nothing", 20, []obs{{16, w1, 0.25}, {12, w1, 0.25}, {19, w2, 0.25},
			{3, w1, 0.25}, {18, w2, 0.25}}},
		{"never below a twentieth", 100, []obs{{0, w1, minShare}}},
		{"a late answer before any sample", 20, []obs{{19, w2, 1}, {5, w1, 1}, {18, w2, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s budgetShare
			for i, o := range tc.seq {
				if got := s.observe(tc.limit, o.rem, o.reset); got != o.want {
					t.Fatalf("observation %d (remaining %d): share %.3f, want %.3f", i, o.rem, got, o.want)
				}
			}
		})
	}
}
