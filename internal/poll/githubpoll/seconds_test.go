package githubpoll

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll/polltest"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// world is the fixture with its pollers, for polltest.SameSecond.
type world struct {
	*fixture
	issues  []int
	pollers []*Driver
}

func (w *world) Advance(d time.Duration) { w.clk.Advance(d) }

func (w *world) Comment(t *testing.T, i int, body string) (int64, time.Time) {
	id, _, err := w.sim.AddComment(repo, w.issues[i], "mara", body)
	must(t, err)
	return id, w.clk.Now() // githubsim stamps its clock's second
}

func (w *world) Round(t *testing.T) {
	var fns []func() error
	for _, d := range w.pollers {
		fns = append(fns, func() error { _, err := w.run(context.Background(), d); return err })
	}
	polltest.Together(t, fns...)
}

func (w *world) Live() map[string]int {
	out := map[string]int{}
	for _, r := range w.sim.Runs() {
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
	f := newFixtureLimit(t, 1_000_000)
	d := polltest.PerComment{Prefix: "c", Forge: "github"}
	f.core = d
	w := &world{fixture: f}
	for range 4 {
		n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "t", Author: "alice"})
		must(t, err)
		w.issues = append(w.issues, n)
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	for range 3 {
		w.pollers = append(w.pollers, NewDriver(f.poller(t), nil))
	}
	polltest.SameSecond(t, w, d, len(w.issues), 40, 36)
	t.Logf("%d runs dispatched", len(f.sim.Runs()))
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
