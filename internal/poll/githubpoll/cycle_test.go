package githubpoll

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// cost is what the emulator counted between two snapshots.
type cost struct{ requests, points, notModified int }

func (f *fixture) counters() cost {
	return cost{f.sim.Requests(), f.sim.RatePointsUsed(), f.sim.NotModified()}
}

func (c cost) since(b cost) cost {
	return cost{c.requests - b.requests, c.points - b.points, c.notModified - b.notModified}
}

// openIssue opens an issue by alice and moves the clock past the lookback
// window, so that only what follows is within it.
func (f *fixture) openIssue(t *testing.T, pr bool) int {
	t.Helper()
	n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "t", Body: "b", Author: "alice", PullRequest: pr})
	must(t, err)
	f.clk.Advance(DefaultLookback + time.Hour)
	return n
}

func (f *fixture) comment(t *testing.T, n int, body string) githubsim.Delivery {
	t.Helper()
	f.clk.Advance(time.Second)
	_, d, err := f.sim.AddComment(repo, n, "mara", body)
	must(t, err)
	return d
}

// checkOnce fails unless every title in want has exactly one live run and
// no other run is live.
func (f *fixture) checkOnce(t *testing.T, want int) {
	t.Helper()
	live := f.runs(false)
	if len(live) != want {
		t.Fatalf("%d changes with live runs, want %d: %v", len(live), want, live)
	}
	for title, n := range live {
		if n != 1 {
			t.Errorf("%s: %d live runs", title, n)
		}
	}
}

// TestDroppedAndDelivered: a comment the event path dispatched is not
// dispatched again; one whose delivery was dropped is dispatched once; the
// next cycle and a restarted poller add nothing; once the runs started
// (and the run list was read again once), an idle cycle costs at most 3
// requests and no rate-limit points.
func TestDroppedAndDelivered(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	n := f.openIssue(t, true)
	must(t, f.webhook(ctx, f.comment(t, n, "first")))
	f.comment(t, n, "second") // delivery dropped
	f.settle()
	d := NewDriver(f.poller(t), nil)
	before := f.counters()
	if st := f.cycle(t, d); st.DispatchesScheduled != 1 {
		t.Fatalf("first cycle dispatched %d runs, want 1 (the dropped comment)", st.DispatchesScheduled)
	}
	c := f.counters().since(before)
	t.Logf("cold cycle dispatching 1 change (1 already dispatched): %d requests, %d rate-limit points", c.requests, c.points)
	f.checkOnce(t, 2)
	f.startRuns(t)
	before = f.counters()
	f.cycle(t, d) // its last run list showed a run waiting: read once more (due)
	if c = f.counters().since(before); c.requests > 4 || c.points > 1 {
		t.Fatalf("cycle after the runs started cost %+v; want the 3 listings' 304s and one run list read", c)
	}
	for i := range 3 {
		before = f.counters()
		if st := f.cycle(t, d); st.Eligible != 0 || st.DispatchesScheduled != 0 {
			t.Fatalf("idle cycle %d: %d eligible, %d dispatched; want nothing", i, st.Eligible, st.DispatchesScheduled)
		}
		c = f.counters().since(before)
		if c.requests > 3 || c.points != 0 || c.notModified != c.requests {
			t.Fatalf("idle cycle %d cost %+v; want at most 3 requests, all 304, 0 points", i, c)
		}
	}
	t.Logf("idle cycle: %d requests, %d rate-limit points", c.requests, c.points)
	before = f.counters()
	if st := f.cycle(t, NewDriver(f.poller(t), nil)); st.DispatchesScheduled != 0 {
		t.Fatalf("restarted poller dispatched %d runs, want 0", st.DispatchesScheduled)
	}
	c = f.counters().since(before)
	t.Logf("cold idle cycle (a one-shot process): %d requests, %d rate-limit points", c.requests, c.points)
	f.checkOnce(t, 2)
}

// TestCostPerChange: the backstop dispatching 10 dropped comments on 10
// issues, and the cycle after a single dropped comment on a warm poller.
func TestCostPerChange(t *testing.T) {
	f := newFixture(t)
	var ns []int
	for range 10 {
		ns = append(ns, f.openIssue(t, false))
	}
	d := NewDriver(f.poller(t), nil)
	f.cycle(t, d) // warm: nothing in the window
	for _, n := range ns {
		f.comment(t, n, "/fs-triage")
	}
	f.settle()
	before := f.counters()
	if st := f.cycle(t, d); st.DispatchesScheduled != 10 {
		t.Fatalf("dispatched %d, want 10", st.DispatchesScheduled)
	}
	c := f.counters().since(before)
	t.Logf("10 dropped comments on 10 issues: %d requests, %d points (%.1f requests, %.1f points per change, dispatch and settle included)",
		c.requests, c.points, float64(c.requests)/10, float64(c.points)/10)
	f.comment(t, ns[0], "again")
	f.settle()
	before = f.counters()
	if st := f.cycle(t, d); st.DispatchesScheduled != 1 {
		t.Fatalf("dispatched %d, want 1", st.DispatchesScheduled)
	}
	c = f.counters().since(before)
	t.Logf("1 dropped comment, warm poller: %d requests, %d points", c.requests, c.points)
	f.checkOnce(t, 11)
}

// TestGrace: a change younger than the grace period is left to the event
// path; once older, the backstop dispatches it, once.
func TestGrace(t *testing.T) {
	f := newFixture(t)
	n := f.openIssue(t, false)
	p := f.poller(t)
	p.o.Grace = DefaultGrace
	d := NewDriver(p, nil)
	f.comment(t, n, "/fs-triage")
	if st := f.cycle(t, d); st.DispatchesScheduled != 0 {
		t.Fatalf("comment within the grace period dispatched %d runs, want 0", st.DispatchesScheduled)
	}
	f.clk.Advance(DefaultGrace)
	if st := f.cycle(t, d); st.DispatchesScheduled != 1 {
		t.Fatalf("comment after the grace period dispatched %d runs, want 1", st.DispatchesScheduled)
	}
	if st := f.cycle(t, d); st.DispatchesScheduled != 0 {
		t.Fatalf("third cycle dispatched %d runs, want 0", st.DispatchesScheduled)
	}
	f.checkOnce(t, 1)
}

// TestPaging: 150 comments on 150 issues (two pages of the issue and
// comment listings, and of the run list) are all dispatched once, and the
// next cycle is idle. (The poll cycle coalesces the changes of one item
// into one run of its newest change, as for every poll input.)
func TestPaging(t *testing.T) {
	f := newFixture(t)
	var ns []int
	for range 150 {
		n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "t", Author: "alice"})
		must(t, err)
		ns = append(ns, n)
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	for i, n := range ns {
		f.comment(t, n, fmt.Sprint("comment ", i))
	}
	f.settle()
	d := NewDriver(f.poller(t), nil)
	if st := f.cycle(t, d); st.DispatchesScheduled != 150 {
		t.Fatalf("dispatched %d, want 150", st.DispatchesScheduled)
	}
	for _, ep := range []string{githubsim.EndpointListRepoComments, githubsim.EndpointListIssues} {
		if c := f.sim.Calls(ep); c != 2 {
			t.Fatalf("%s: %d requests, want its 2 pages", ep, c)
		}
	}
	f.checkOnce(t, 150)
	before := f.counters()
	if st := f.cycle(t, NewDriver(f.poller(t), nil)); st.DispatchesScheduled != 0 {
		t.Fatalf("restarted poller dispatched %d, want 0", st.DispatchesScheduled)
	}
	t.Logf("cold cycle over 150 handled comments: %+v", f.counters().since(before))
	before = f.counters()
	if st := f.cycle(t, d); st.DispatchesScheduled != 0 {
		t.Fatalf("warm poller dispatched %d, want 0", st.DispatchesScheduled)
	}
	if c := f.counters().since(before); c.requests > 3 || c.points != 0 {
		t.Fatalf("idle cycle over 150 handled comments cost %+v", c)
	}
}

// TestFloor: the window's floor stays put while the window grows, so idle
// cycles stay 304s; once the window is twice the lookback the floor jumps
// (one cycle pays the listings) and a comment made meanwhile is still
// dispatched once.
func TestFloor(t *testing.T) {
	f := newFixture(t)
	n := f.openIssue(t, false)
	d := NewDriver(f.poller(t), nil)
	f.cycle(t, d)
	f.clk.Advance(DefaultLookback)
	before := f.counters()
	f.cycle(t, d)
	if c := f.counters().since(before); c.points != 0 || c.requests != 3 {
		t.Fatalf("idle cycle one lookback later cost %+v, want 3 free requests", c)
	}
	f.clk.Advance(DefaultLookback)
	f.comment(t, n, "/fs-triage")
	f.settle()
	before = f.counters()
	if st := f.cycle(t, d); st.DispatchesScheduled != 1 {
		t.Fatalf("dispatched %d after the floor moved, want 1", st.DispatchesScheduled)
	}
	if c := f.counters().since(before); c.points < 3 {
		t.Fatalf("the cycle after the floor moved cost %+v: the listings were not asked again", c)
	}
	before = f.counters()
	f.cycle(t, d)
	if c := f.counters().since(before); c.points != 0 || c.requests != 3 {
		t.Fatalf("idle cycle after the jump cost %+v, want 3 free requests", c)
	}
	f.checkOnce(t, 1)
}
