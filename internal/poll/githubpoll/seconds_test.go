package githubpoll

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// perComment runs, for every comment, a harness of its own, named after
// the comment's id ("c<id>"): each comment is its own scope, so no
// comment is coalesced into another and each must end with exactly one
// live run. Other changes match nothing.
type perComment struct{}

func (perComment) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	c := ev.Transition.Comment
	if c == nil {
		return poll.Decision{Verdict: poll.VerdictNoMatch}
	}
	name := "c" + c.ID
	return poll.Decision{Verdict: poll.VerdictRun, Runs: []plan.Run{{Harness: name, Event: ev, Key: scope.KeyOf(name, ev, "github"),
		WorkItem: plan.WorkItem{URL: ev.Entity.URL, Source: event.SystemGitHub}}}}
}

func (perComment) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }

// liveByAgent counts the live (not cancelled) runs per agent input.
func (f *fixture) liveByAgent() map[string]int {
	out := map[string]int{}
	for _, r := range f.sim.Runs() {
		if r.Conclusion != githubsim.ConclusionCancelled {
			out[r.Inputs["agent"]]++
		}
	}
	return out
}

// TestSameSecondComments: 3 pollers with no grace period run a cycle
// each after every comment, while 40 comments land on 4 issues a few
// hundred milliseconds apart, so that many are made in the same second
// (GitHub's timestamps have second precision) as an earlier comment on
// the same issue that a cycle already saw. Every comment runs its own
// harness; each ends with exactly one live run: none lost (the item's
// updated_at did not move, so no cycle may take its second as handled
// while the second is not over), none doubled (the three pollers settle).
func TestSameSecondComments(t *testing.T) {
	f, ctx := newFixtureLimit(t, 1_000_000), context.Background()
	f.core = perComment{}
	var ns []int
	for range 4 {
		n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "t", Author: "alice"})
		must(t, err)
		ns = append(ns, n)
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	pollers := []*Driver{NewDriver(f.poller(t), nil), NewDriver(f.poller(t), nil), NewDriver(f.poller(t), nil)}
	round := func() {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, len(pollers))
		for _, d := range pollers {
			wg.Go(func() {
				_, err := f.run(ctx, d)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			must(t, err)
		}
	}
	rng := rand.New(rand.NewPCG(36, 1))
	ids := map[int64]bool{}
	sameSecond, last := 0, map[int]time.Time{}
	for i := range 40 {
		f.clk.Advance(time.Duration(rng.IntN(400)) * time.Millisecond)
		n := ns[rng.IntN(len(ns))]
		id, _, err := f.sim.AddComment(repo, n, "mara", fmt.Sprint("/fs-run ", i))
		must(t, err)
		ids[id] = true
		if s := f.clk.Now().Truncate(time.Second); last[n].Equal(s) {
			sameSecond++
		} else {
			last[n] = s
		}
		round()
	}
	f.clk.Advance(10 * time.Second)
	round()
	round()
	if sameSecond < 5 {
		t.Fatalf("only %d comments made in the same second as an earlier one on their issue; the test needs several", sameSecond)
	}
	live := f.liveByAgent()
	lost, doubled := 0, 0
	for id := range ids {
		switch n := live[fmt.Sprint("c", id)]; {
		case n == 0:
			lost++
			t.Errorf("comment %d: no live run", id)
		case n > 1:
			doubled++
			t.Errorf("comment %d: %d live runs", id, n)
		}
	}
	if len(live) != len(ids) {
		t.Errorf("%d agents with live runs, want %d (one per comment): %v", len(live), len(ids), live)
	}
	t.Logf("%d comments (%d in the same second as an earlier one on their issue): %d lost, %d doubled, %d runs dispatched",
		len(ids), sameSecond, lost, doubled, len(f.sim.Runs()))
}

// TestSameSecondEventPath: two comments made in the same second on one
// issue are two changes on the event path too: their runs carry keys
// told apart by the comments' ids, so the settle rule keeps both, and a
// poller finds the second dispatched when both were delivered, or
// dispatches it once when only the first was.
func TestSameSecondEventPath(t *testing.T) {
	for _, tc := range []struct {
		name         string
		dropSecond   bool
		wantBackstop int
	}{
		{"both delivered", false, 0},
		{"second dropped", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ctx := newFixture(t), context.Background()
			n := f.openIssue(t, false)
			first := f.comment(t, n, "/fs-triage one")
			f.clk.Advance(300 * time.Millisecond) // the same second on GitHub's clock
			_, second, err := f.sim.AddComment(repo, n, "mara", "/fs-triage two")
			must(t, err)
			must(t, f.webhook(ctx, first))
			if !tc.dropSecond {
				must(t, f.webhook(ctx, second))
			}
			f.settle()
			d := NewDriver(f.poller(t), nil)
			if st := f.cycle(t, d); st.DispatchesScheduled != tc.wantBackstop {
				t.Fatalf("the backstop dispatched %d, want %d", st.DispatchesScheduled, tc.wantBackstop)
			}
			if st := f.cycle(t, d); st.DispatchesScheduled != 0 {
				t.Fatalf("the next cycle dispatched %d, want 0", st.DispatchesScheduled)
			}
			f.checkOnce(t, 2)
		})
	}
}
