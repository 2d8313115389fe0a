package githubpoll

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestIdleAfterEventPath: once the event path (gha-event + gha-dispatch)
// dispatched a comment, the backstop's first cycle finds the item handled
// by the run list; while that run waits, an idle cycle also reads the run
// list (a 304: GitHub's concurrency group may still drop a waiting run,
// TestDisplacedAfterHandled), and once it started every idle cycle,
// `--watch` and one-shot with the state directory alike, is the three
// listings' 304s: no run list read, no permission lookup, no rate-limit
// point.
func TestIdleAfterEventPath(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pr      bool
		oneShot bool
	}{
		{"issue, --watch", false, false},
		{"issue, one-shot", false, true},
		{"pull request, --watch", true, false},
		{"pull request, one-shot", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ctx := newFixture(t), context.Background()
			n := f.openIssue(t, tc.pr)
			must(t, f.webhook(ctx, f.comment(t, n, "/fs-triage")))
			f.settle()
			dir, d := t.TempDir(), NewDriver(f.poller(t), nil)
			cycle := func() cost {
				t.Helper()
				if tc.oneShot {
					st, c := f.oneShot(t, dir, nil)
					if st.DispatchesScheduled != 0 {
						t.Fatalf("dispatched %d, want 0: the event path did", st.DispatchesScheduled)
					}
					return c
				}
				before := f.counters()
				if st := f.cycle(t, d); st.DispatchesScheduled != 0 {
					t.Fatalf("dispatched %d, want 0: the event path did", st.DispatchesScheduled)
				}
				return f.counters().since(before)
			}
			first := cycle()
			t.Logf("first cycle: %d requests, %d rate-limit points", first.requests, first.points)
			f.clk.Advance(time.Minute)
			runs := f.sim.Calls(githubsim.EndpointWorkflowRuns)
			if c := cycle(); c.points != 0 || c.requests != 4 || c.notModified != 4 || f.sim.Calls(githubsim.EndpointWorkflowRuns)-runs != 1 {
				t.Fatalf("idle cycle while the event path's run waits: %d requests (%d 304), %d points; want the 3 listings' "+
					"and the run list's 304s (GitHub may still drop a waiting run)", c.requests, c.notModified, c.points)
			}
			f.startRuns(t)
			f.clk.Advance(time.Minute)
			cycle() // the run list changed: read once more
			for i := range 3 {
				f.clk.Advance(time.Minute)
				runs, perms := f.sim.Calls(githubsim.EndpointWorkflowRuns), f.sim.Calls(githubsim.EndpointPermission)
				c := cycle()
				runs, perms = f.sim.Calls(githubsim.EndpointWorkflowRuns)-runs, f.sim.Calls(githubsim.EndpointPermission)-perms
				if runs != 0 || perms != 0 || c.points != 0 || c.requests != 3 || c.notModified != 3 {
					t.Fatalf("idle cycle %d: %d requests (%d 304), %d points, %d run list reads, %d permission lookups; want the 3 listings' 304s only",
						i, c.requests, c.notModified, c.points, runs, perms)
				}
			}
			f.checkOnce(t, 1)
		})
	}
}
