package githubpoll

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/poll/polltest"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestEveryDueItemInOneCycle: github-poll holds no lock, so a cycle
// decides every changed item before taking any and dispatches every
// command the API budget allows, whatever lock.n: comments that start
// nothing (an outsider's, a bot's, one with no command) take nothing
// from the commands, and more commanded items than lock.n all go out in
// the one cycle.
func TestEveryDueItemInOneCycle(t *testing.T) {
	for _, tc := range polltest.DueItemCases {
		t.Run(tc.Name, func(t *testing.T) {
			f := newFixture(t)
			must(t, f.sim.SetPermission(repo, "eve", "read"))
			var ns []int
			for range tc.Commands + 3 {
				ns = append(ns, f.openIssue(t, false))
			}
			d := NewDriver(f.poller(t), nil)
			f.cycle(t, d) // warm: nothing in the window
			if tc.Unrelated {
				// older than the commands: the longest-waiting
				for i, c := range []struct{ who, body string }{{"eve", "/fs-triage"}, {"renovate[bot]", "/fs-triage"}, {"mara", "thanks, looks good"}} {
					_, _, err := f.sim.AddComment(repo, ns[tc.Commands+i], c.who, c.body)
					must(t, err)
				}
			}
			for _, n := range ns[:tc.Commands] {
				f.comment(t, n, "/fs-triage")
			}
			f.settle()
			res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: d, Output: f.out, JitterMax: -1, Now: f.clk.Now,
				Validate: (*event.Event).Validate, N: tc.N, Core: polltest.Commands{Harness: "triage", Command: "/fs-triage", Forge: "github"}})
			must(t, err)
			tc.Check(t, res.Stats)
			f.checkOnce(t, tc.Commands)
			if st := f.cycle(t, d); st.Eligible != 0 || st.DispatchesScheduled != 0 {
				t.Fatalf("next cycle: %d eligible, %d dispatched; want every item handled", st.Eligible, st.DispatchesScheduled)
			}
		})
	}
}

// TestCycleKeepsRateReserve: a cycle takes items only while GitHub's
// remaining rate budget, as the poller's client last saw it less what
// the cycle spent since, is above the reserve (a fifth of the limit):
// with 100 points an hour, 50 commands that cost about 2 points each
// (the dispatch and its settle) leave the rest to the next window, which
// dispatches them, each once.
func TestCycleKeepsRateReserve(t *testing.T) {
	const limit, items = 100, 50
	f := newFixtureLimit(t, limit)
	in, err := build(config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: f.base}}, repo,
		ghadispatch.DefaultWorkflow, token, f.tr, poll.InputEnv{Now: f.clk.Now})
	must(t, err)
	var ns []int
	for range items {
		n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "t", Body: "b", Author: "alice"})
		must(t, err)
		ns = append(ns, n)
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	cycle := func() poll.CycleStats {
		t.Helper()
		res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: in.Driver, Output: f.out, JitterMax: -1, Now: f.clk.Now,
			Validate: (*event.Event).Validate, Core: polltest.Commands{Harness: "triage", Command: "/fs-triage", Forge: "github"}})
		must(t, err)
		return res.Stats
	}
	cycle() // warm: nothing in the window
	for _, n := range ns {
		f.clk.Advance(time.Second)
		_, _, err := f.sim.AddComment(repo, n, "mara", "/fs-triage")
		must(t, err)
	}
	f.settle()
	used := f.sim.RatePointsUsed()
	st := cycle()
	left := limit - f.sim.RatePointsUsed()
	t.Logf("first cycle: %d dispatched, %d deferred, %d of %d points left (%d spent); the poller saw %+v",
		st.DispatchesScheduled, st.ItemsDeferred, left, limit, f.sim.RatePointsUsed()-used, in.Driver.Usage().RateBudget)
	if rb := in.Driver.Usage().RateBudget; !rb.Known || rb.Limit != limit {
		t.Fatalf("the poller's usage reports %+v, want GitHub's limit of %d", rb, limit)
	}
	if st.ItemsDeferred == 0 || st.DispatchesScheduled+st.ItemsDeferred != items {
		t.Fatalf("dispatched %d, deferred %d; want the budget to leave some of the %d items", st.DispatchesScheduled, st.ItemsDeferred, items)
	}
	if reserve := limit / 5; left < reserve-pollcycle.RunCost {
		t.Fatalf("%d points left, below the reserve of %d", left, reserve)
	}
	f.clk.Advance(time.Hour) // GitHub's window resets
	if st2 := cycle(); st2.DispatchesScheduled != st.ItemsDeferred {
		t.Fatalf("the next window's cycle dispatched %d, want the %d left", st2.DispatchesScheduled, st.ItemsDeferred)
	}
	f.checkOnce(t, items)
}
