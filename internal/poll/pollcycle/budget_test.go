package pollcycle_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
)

// forgeFake is an in-memory driver without locks (poll.NoLocks), as
// github-poll and gitlab-poll are: every item not handled yet is eligible
// at each discovery, detecting one costs cost requests, and an advanced
// item is handled. With rate set, the platform's remaining budget is
// what is left of it after those requests and pollcycle.RunCost for each run
// out started.
type forgeFake struct {
	poll.NoLocks
	mu      sync.Mutex
	specs   []forgeItem
	cost    int
	calls   int
	rate    *poll.RateBudget
	out     *fakeOut
	handled map[string]bool
}

// forgeItem is one item: its comments, and how long it waited (minutes
// before t0).
type forgeItem struct {
	id     string
	waited int
	texts  []string
}

func (f *forgeFake) Name() string { return "forge-fake" }

func (f *forgeFake) Capabilities() poll.Capabilities { return poll.Capabilities{NoLocks: f} }

func (f *forgeFake) Discover(context.Context) (*poll.Discovery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := &poll.Discovery{Candidates: len(f.specs)}
	for _, s := range f.specs {
		if !f.handled[s.id] {
			it := item(s.id, s.texts...)
			it.Waiting = t0.Add(-time.Duration(s.waited) * time.Minute)
			d.Eligible = append(d.Eligible, it)
		}
	}
	return d, nil
}

func (f *forgeFake) Detect(_ context.Context, items []*poll.Item) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls += f.cost * len(items)
	return nil
}

func (f *forgeFake) Advance(_ context.Context, it *poll.Item, _ poll.Checkpoint) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.handled == nil {
		f.handled = map[string]bool{}
	}
	f.handled[it.ID] = true
	return nil
}

func (f *forgeFake) Usage() poll.Usage {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := poll.Usage{Calls: f.calls}
	if f.rate != nil {
		u.RateBudget = *f.rate
		if u.RateBudget.Known {
			f.out.Mu.Lock()
			u.RateBudget.Remaining -= f.calls + pollcycle.RunCost*len(f.out.Runs)
			f.out.Mu.Unlock()
		}
	}
	return u
}

// commands is n items with one "/run" comment each, the first the
// longest-waiting, named prefix-000...
func commands(prefix string, n, from int) []forgeItem {
	var out []forgeItem
	for i := range n {
		out = append(out, forgeItem{id: fmt.Sprintf("%s-%03d", prefix, i), waited: from - i, texts: []string{"/run"}})
	}
	return out
}

// dispatchedIDs is the items of the runs o started since run k, in order.
func dispatchedIDs(o *fakeOut, k int) []string {
	o.Mu.Lock()
	defer o.Mu.Unlock()
	var ids []string
	for _, r := range o.Runs[k:] {
		ids = append(ids, r.Event.Entity.Key)
	}
	return ids
}

// A driver without locks decides every due item before anything is
// selected, and takes every one the API budget allows, whatever N: items
// whose changes start nothing take nothing from the others.
func TestBudgetedCycleTakesEveryDueItem(t *testing.T) {
	unrelated := []forgeItem{{id: "U-1", waited: 30, texts: []string{"thanks!"}}, {id: "U-2", waited: 29, texts: []string{"hello"}},
		{id: "U-3", waited: 28, texts: []string{"see above"}}}
	cases := []struct {
		name     string
		specs    []forgeItem
		n        int
		cost     int
		want     int
		selected int
	}{
		{"three commands after three unrelated comments, n 2", append(slices.Clone(unrelated), commands("C", 3, 10)...), 2, 3, 3, 6},
		{"more due items than the default n", commands("C", 12, 20), 0, 3, 12, 12},
		{"items that cost nothing to detect", commands("C", 120, 200), 0, 0, 120, 120},
		{"more than a batch of them", commands("C", 130, 200), 1, 2, 130, 130},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, out := &forgeFake{specs: tc.specs, cost: tc.cost}, &fakeOut{}
			o := opts(f, fakeCore{}, out)
			o.N = tc.n
			res, err := pollcycle.Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if st := res.Stats; st.DispatchesScheduled != tc.want || st.Selected != tc.selected || st.ItemsDeferred != 0 {
				t.Fatalf("dispatched %d, selected %d, deferred %d; want %d, %d and 0", st.DispatchesScheduled, st.Selected,
					st.ItemsDeferred, tc.want, tc.selected)
			}
			res, err = pollcycle.Run(context.Background(), o)
			if err != nil || res.Stats.Eligible != 0 {
				t.Fatalf("next cycle: %d eligible (%v), want none: every item handled", res.Stats.Eligible, err)
			}
		})
	}
}

// The budget bounds a cycle: its driver's requests (Options.Requests)
// and the platform's remaining rate budget above the reserve. The items
// beyond it wait, and the next cycle takes the longest-waiting first,
// ahead of items that arrived since: each is dispatched once.
func TestBudgetedCycleLeavesTheRestOldestFirst(t *testing.T) {
	reset := t0.Add(time.Hour)
	cases := []struct {
		name     string
		requests int
		rate     *poll.RateBudget
		now      time.Time
		perCycle []int // dispatches of each cycle until all are done
	}{
		// 5 items to measure (5 requests each: 3 to detect, 2 for the
		// run), then 25 left.
		{"request budget", 50, nil, t0, []int{10, 10, 10}},
		// A reserve of 20 of 100: 5 items (4 points each), then the 20
		// above it.
		{"rate budget above the reserve", 1000, &poll.RateBudget{Known: true, Limit: 100, Remaining: 60, Reset: reset}, t0,
			[]int{10, 0}},
		{"rate budget reset since it was reported", 1000, &poll.RateBudget{Known: true, Limit: 100, Remaining: 10, Reset: reset},
			reset, []int{30}},
		{"rate budget not reported", 1000, &poll.RateBudget{}, t0, []int{30}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cost := 3
			if tc.rate != nil {
				cost = 2
			}
			out := &fakeOut{}
			f := &forgeFake{specs: commands("C", 30, 100), cost: cost, rate: tc.rate, out: out}
			o := opts(f, fakeCore{}, out)
			o.Requests, o.Now = tc.requests, func() time.Time { return tc.now }
			for i, want := range tc.perCycle {
				k := len(out.Runs)
				res, err := pollcycle.Run(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				st := res.Stats
				if st.DispatchesScheduled != want || st.ItemsDeferred != st.Eligible-want {
					t.Fatalf("cycle %d: dispatched %d, deferred %d of %d eligible; want %d dispatched, the rest deferred",
						i+1, st.DispatchesScheduled, st.ItemsDeferred, st.Eligible, want)
				}
				got := dispatchedIDs(out, k)
				if !slices.IsSorted(got) || len(got) > 0 && got[0] != fmt.Sprintf("C-%03d", k) {
					t.Fatalf("cycle %d dispatched %v; want the longest-waiting first, from C-%03d", i+1, got, k)
				}
				if i == 0 && len(tc.perCycle) > 1 {
					f.mu.Lock()
					f.specs = append(f.specs, commands("N", 5, 0)...) // newer arrivals wait behind
					f.mu.Unlock()
				}
			}
			if rb := f.Usage().RateBudget; rb.Known && tc.now.Before(rb.Reset) && rb.Remaining < 20 {
				t.Fatalf("the cycles left %d of the rate budget, below the reserve of 20", rb.Remaining)
			}
		})
	}
}

// A cycle without locks writes no lock, so it waits no jitter before
// dispatching.
func TestBudgetedCycleWaitsNoJitter(t *testing.T) {
	f, out := &forgeFake{specs: commands("C", 3, 10), cost: 1}, &fakeOut{}
	o := opts(f, fakeCore{}, out)
	o.JitterMin, o.JitterMax = 500*time.Millisecond, 1500*time.Millisecond
	var waits []time.Duration
	o.Sleep = func(_ context.Context, d time.Duration) error {
		if d > 0 {
			waits = append(waits, d)
		}
		return nil
	}
	res, err := pollcycle.Run(context.Background(), o)
	if err != nil || res.Stats.DispatchesScheduled != 3 {
		t.Fatalf("dispatched %d (%v), want 3", res.Stats.DispatchesScheduled, err)
	}
	if len(waits) > 0 {
		t.Fatalf("the cycle waited %v before dispatching; a driver without locks has no lock to verify", waits)
	}
}

// A dry run of a driver without locks plans every due item the budget
// allows too.
func TestBudgetedDryRun(t *testing.T) {
	f := &forgeFake{specs: commands("C", 12, 20), cost: 1}
	res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: f, Core: fakeCore{}, Output: &fakeOut{}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Planned) != 12 || res.Stats.RunsPlanned != 12 {
		t.Fatalf("planned %d runs (stats %d), want 12", len(res.Planned), res.Stats.RunsPlanned)
	}
}
