package poll_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
)

func waiting(n int) []*poll.Item {
	var out []*poll.Item
	for i := 0; i < n; i++ {
		// later items waited longer, so the order must be reversed
		out = append(out, &poll.Item{ID: fmt.Sprintf("P-%03d", i), Waiting: t0.Add(-time.Duration(i) * time.Minute)})
	}
	return out
}

func TestSelect(t *testing.T) {
	cases := []struct {
		name   string
		items  int
		n      int
		rng    *rand.Rand
		want   int
		oldest int // every pick must be among the oldest this many
	}{
		{"none", 0, 5, nil, 0, 0},
		{"fewer than n", 3, 5, nil, 3, 3},
		{"deterministic without rng", 50, 5, nil, 5, 5},
		{"random within the window", 50, 5, rand.New(rand.NewPCG(4, 2)), 5, 5 * poll.Spread},
		{"n zero", 10, 0, nil, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items := waiting(tc.items)
			got := poll.Select(items, tc.n, tc.rng)
			if len(got) != tc.want {
				t.Fatalf("picked %d, want %d", len(got), tc.want)
			}
			seen := map[string]bool{}
			for _, it := range got {
				var idx int
				fmt.Sscanf(it.ID, "P-%d", &idx)
				if rank := tc.items - 1 - idx; rank >= tc.oldest {
					t.Errorf("%s (rank %d by wait) is outside the oldest %d", it.ID, rank, tc.oldest)
				}
				if seen[it.ID] {
					t.Errorf("%s picked twice", it.ID)
				}
				seen[it.ID] = true
			}
			if tc.items > 0 && items[0].ID != "P-000" {
				t.Error("Select reordered its input")
			}
		})
	}
}

func TestCheckpoint(t *testing.T) {
	cp := poll.Checkpoint{At: t0, Retry: map[string]time.Time{"b": t0.Add(-time.Hour), "c": t0.Add(time.Hour)}}
	if !cp.Pos("a").Equal(t0) || !cp.Pos("b").Equal(t0.Add(-time.Hour)) || !cp.Pos("c").Equal(t0) {
		t.Errorf("positions a=%v b=%v c=%v", cp.Pos("a"), cp.Pos("b"), cp.Pos("c"))
	}
	if !cp.Min().Equal(t0.Add(-time.Hour)) || !cp.Pending() {
		t.Errorf("min %v pending %v", cp.Min(), cp.Pending())
	}
	if (poll.Checkpoint{At: t0}).Pending() {
		t.Error("a checkpoint without retries is pending")
	}
	c := cp.Clone()
	c.Retry["b"] = t0
	if !cp.Retry["b"].Equal(t0.Add(-time.Hour)) {
		t.Error("Clone shares the retry map")
	}
}

var t0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
