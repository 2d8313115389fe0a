package jirapoll_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m) // exits
}

// costWorld builds M=50 seeded issues and adds one /fs-triage comment to 5.
func costWorld(e *env) (all, changed []string) {
	all = e.issues(50, seeded, "")
	for i := 0; i < 50; i += 10 {
		e.sim.AddComment(all[i], alice, "/fs-triage please")
		changed = append(changed, all[i])
	}
	return all, changed
}

// Prove-it 1 (call counts): one cycle over 50 candidates of which 5 have a
// new triggering comment, N=5. Wall time is measured by BenchmarkCycleCost.
// The comments come inline with discovery's search when Jira returns them
// all; a partial inline page (more comments than Jira returns with the
// issue) is listed instead.
func TestCycleCost(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     jirasim.Options
		earlier  bool // a comment before the triggering one on each changed issue
		listings int
	}{
		{name: "inline comments whole", listings: 0},
		{name: "inline comments partial", opts: jirasim.Options{IssueComments: 1}, earlier: true, listings: 5},
	} {
		t.Run(tc.name, func(t *testing.T) { testCycleCost(t, tc.opts, tc.earlier, tc.listings) })
	}
}

func testCycleCost(t *testing.T, opts jirasim.Options, earlier bool, listings int) {
	e := newEnv(t, opts)
	all := e.issues(50, seeded, "")
	var changed []string
	for i := 0; i < 50; i += 10 {
		if earlier {
			e.sim.AddComment(all[i], alice, "some context")
		}
		e.sim.AddComment(all[i], alice, "/fs-triage please")
		changed = append(changed, all[i])
	}
	rec := &recorder{}
	p := e.poller(pollerOpts{out: rec, jitter: 2 * time.Millisecond})
	e.sim.ResetCalls()
	st := p.mustCycle()
	calls := e.sim.Calls()
	keys := make([]string, 0, len(calls))
	for k := range calls {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%4d %s", calls[k], k)
	}
	total := sumCalls(calls)
	t.Logf("total Jira calls: %d (stats api_calls %d)", total, st.APICalls)
	if total > 30 {
		t.Errorf("cycle made %d Jira calls, want at most 30", total)
	}
	if st.APICalls != total {
		t.Errorf("stats api_calls = %d, emulator counted %d", st.APICalls, total)
	}
	if got := calls["GET /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"]; got != 0 {
		t.Errorf("%d single property reads, want 0 (properties come inline)", got)
	}
	if got := calls["POST /rest/api/3/changelog/bulkfetch"]; got != 1 {
		t.Errorf("%d bulk changelog calls, want 1", got)
	}
	if got := calls["GET /rest/api/3/issue/{issueIdOrKey}/comment"]; got != listings {
		t.Errorf("%d comment listings, want %d", got, listings)
	}
	if st.Candidates != 50 || st.Eligible != 5 || st.LocksAcquired != 5 || st.DispatchesScheduled != 10 {
		t.Errorf("stats = %+v", st)
	}
	got := rec.count()
	for _, k := range changed {
		if got[k+"/triage"] != 1 {
			t.Errorf("%s: %d triage dispatches, want 1", k, got[k+"/triage"])
		}
	}
}

// Prove-it 3: a poller that died after locking and before dispatching
// leaves a lock; once it is stale another poller takes over.
func TestCrashedPollerLockGoesStale(t *testing.T) {
	t.Parallel()
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "/fs-triage")[0]

	dead := e.poller(pollerOpts{id: "dead-poller", stale: 200 * time.Millisecond})
	disc, err := dead.drv.Discover(t.Context())
	if err != nil || len(disc.Eligible) != 1 {
		t.Fatalf("discover: %v %+v", err, disc)
	}
	if err := dead.drv.Acquire(t.Context(), disc.Eligible); err != nil || disc.Eligible[0].State() != poll.StateHeld {
		t.Fatalf("acquire: %v", err)
	}
	// The process is gone now: nothing dispatched, the lock stays.

	rec := &recorder{}
	live := e.poller(pollerOpts{id: "live-poller", out: rec, stale: 200 * time.Millisecond})
	st := live.mustCycle()
	if len(rec.all()) != 0 || st.Eligible != 0 {
		t.Fatalf("dispatched through a fresh lock: %+v", st)
	}
	e.clock.Advance(250 * time.Millisecond)
	st = live.mustCycle()
	if n := rec.count()[k+"/triage"]; n != 1 {
		t.Fatalf("after the stale threshold: %d triage dispatches, want 1 (stats %+v)", n, st)
	}
	if st.LocksStaleRemoved != 1 {
		t.Errorf("locks_stale_removed = %d, want 1", st.LocksStaleRemoved)
	}
	l, ok := e.lock(k)
	if !ok || polllock.LockOwner(l.ID) != "live-poller" || l.Phase != polllock.PhasePending || len(l.Runs) != 2 {
		t.Errorf("lock after dispatch = %+v (present %v)", l, ok)
	}
}

// Prove-it 4: dispatch failure removes the lock and leaves lastCheck; the
// next cycle dispatches.
func TestDispatchFailureRetriesNextCycle(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "")[0]
	before, _ := e.lastCheck(k)
	e.sim.AddComment(k, alice, "/fs-triage")
	rec := &recorder{}
	rec.setFail("triage", true)
	rec.setFail("audit", true)
	p := e.poller(pollerOpts{out: rec})
	st := p.mustCycle()
	if st.DispatchesFailed != 2 || st.DispatchesScheduled != 0 {
		t.Fatalf("stats = %+v", st)
	}
	if _, ok := e.lock(k); ok {
		t.Error("lock left after a failed dispatch")
	}
	after, _ := e.lastCheck(k)
	if !after.TS.Equal(before.TS) || after.Harness != nil {
		t.Errorf("lastCheck changed after a failed dispatch: %+v → %+v", before, after)
	}
	rec.setFail("triage", false)
	rec.setFail("audit", false)
	st = p.mustCycle()
	c := rec.count()
	if c[k+"/triage"] != 1 || c[k+"/audit"] != 1 {
		t.Fatalf("retry dispatched %v, want one triage and one audit (stats %+v)", c, st)
	}
	if lc, _ := e.lastCheck(k); !lc.TS.After(before.TS) {
		t.Errorf("lastCheck not advanced after success: %v", lc)
	}
}

// Multi-harness safety: one harness fails, the other succeeds → the next
// cycle retries only the failed one.
func TestPartialFailureRetriesOnlyFailedHarness(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "/fs-triage first")[0]
	rec := &recorder{}
	rec.setFail("audit", true)
	p := e.poller(pollerOpts{out: rec})
	p.mustCycle()
	lc, _ := e.lastCheck(k)
	if _, ok := lc.Harness["audit"]; !ok || len(lc.Harness) != 1 {
		t.Fatalf("lastCheck = %+v, want a retry position for audit only", lc)
	}
	e.releaseAll([]string{k}) // the triage run finished
	rec.setFail("audit", false)
	p.mustCycle()
	c := rec.count()
	if c[k+"/triage"] != 1 || c[k+"/audit"] != 1 {
		t.Fatalf("dispatches = %v, want triage once and audit once", c)
	}
	if lc, _ := e.lastCheck(k); len(lc.Harness) != 0 {
		t.Errorf("retry position left after success: %+v", lc)
	}
	e.releaseAll([]string{k})
	p.mustCycle()
	if got := len(rec.all()); got != 2 {
		t.Errorf("a quiet cycle dispatched again: %d runs", got)
	}
}

// Prove-it 6: ten /fs-triage comments between two cycles → one triage
// dispatch carrying the newest comment.
func TestCoalescing(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "")[0]
	for i := 1; i <= 10; i++ {
		e.sim.AddComment(k, alice, "/fs-triage round "+string(rune('0'+i%10)))
	}
	rec := &recorder{}
	p := e.poller(pollerOpts{out: rec})
	st := p.mustCycle()
	var triage []plan.Run
	for _, r := range rec.all() {
		if r.Harness == "triage" {
			triage = append(triage, r)
		}
	}
	if len(triage) != 1 {
		t.Fatalf("%d triage dispatches, want 1", len(triage))
	}
	c := triage[0].Event.Transition.Comment
	if c.Body != "/fs-triage round 0" || c.Command != "/fs-triage" || c.Instruction != "round 0" {
		t.Errorf("dispatched comment = %+v, want the newest (round 0)", c)
	}
	if st.RunsMatched != 20 || st.RunsCoalesced != 18 {
		t.Errorf("runs matched/coalesced = %d/%d, want 20/18", st.RunsMatched, st.RunsCoalesced)
	}
	if !strings.HasPrefix(triage[0].PollLock.Property, k+"/fullsend.poll.acme.platform.lock") {
		t.Errorf("poll lock property = %q", triage[0].PollLock.Property)
	}
}
