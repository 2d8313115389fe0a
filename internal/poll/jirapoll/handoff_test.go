package jirapoll_test

import (
	"testing"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// A run that starts and ends before the poller records the dispatch (the
// local executor with a quick agent) has already removed the lock: the
// poller must not write it back, or the issue stays locked without a run
// until the lock goes stale.
func TestRunReleasedBeforeDispatchRecorded(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "just a note")[0] // audit only: one run
	rec := &recorder{after: e.release}
	p := e.poller(pollerOpts{out: rec})
	if st := p.mustCycle(); st.DispatchesScheduled != 1 {
		t.Fatalf("stats = %+v", st)
	}
	if l, ok := e.lock(k); ok {
		t.Errorf("lock written back after the run released it: %+v", l)
	}
	if lc, ok := e.lastCheck(k); !ok || lc.TS.IsZero() {
		t.Error("lastCheck not advanced")
	}
}

// With several runs on the issue, a lock already gone may have been
// released by one of them while another has not started: it is written
// back for that one (which would otherwise find no lock and not run).
func TestLockWrittenBackForRunsNotStarted(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "/fs-triage")[0] // triage and audit
	first := true
	rec := &recorder{after: func(run plan.Run) {
		if first {
			first = false
			e.release(run)
		}
	}}
	if st := e.poller(pollerOpts{out: rec}).mustCycle(); st.DispatchesScheduled != 2 {
		t.Fatalf("stats = %+v", st)
	}
	if l, ok := e.lock(k); !ok || l.ID != "poller-1" || len(l.Runs) != 2 {
		t.Errorf("lock = %+v (found %v), want it back with both runs", l, ok)
	}
}

// A run that already took the lock over (phase running, its own entry)
// keeps it: the poller adds the other runs of the cycle without turning the
// phase back to dispatched or dropping the runner's entry.
func TestRunningLockKeptWhenDispatchRecorded(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "/fs-triage")[0]
	var rec *recorder
	rec = &recorder{after: func(run plan.Run) {
		if run.Harness != "triage" {
			return
		}
		// the triage run's `fullsend run` marks the lock running with its
		// CI run id (the recorder's ref for it is recorder/1)
		l, _ := e.lock(k)
		l.Phase = polllock.PhaseRunning
		l.Runs = append(l.Runs, plan.Ref{Driver: "recorder", ID: "1"})
		e.sim.SetPropertyDirect(k, lockKey(), l.Marshal())
	}}
	p := e.poller(pollerOpts{out: rec})
	if st := p.mustCycle(); st.DispatchesScheduled != 2 {
		t.Fatalf("stats = %+v", st)
	}
	l, ok := e.lock(k)
	if !ok || l.Phase != polllock.PhaseRunning || l.ID != "poller-1" {
		t.Fatalf("lock = %+v (found %v), want the runner's running lock", l, ok)
	}
	ids := map[string]int{}
	for _, r := range l.Runs {
		ids[r.Driver+"/"+r.ID]++
	}
	if len(l.Runs) != 2 || ids["recorder/1"] != 1 || ids["recorder/2"] != 1 {
		t.Errorf("runs = %+v, want recorder/1 and recorder/2 once each", l.Runs)
	}
}

// When Jira rejects the consistent re-read before locking (a selected issue
// was deleted), the issues are re-read one by one: a lock another poller
// wrote after the lagging search's snapshot is not overwritten.
func TestRecheckFallbackKeepsFreshLocks(t *testing.T) {
	t.Parallel()
	e, gone, busy := laggingWorld(t)
	// Another poller's run holds busy; the lagging search does not show it.
	held := polllock.Lock{ID: "other", TS: e.clock.Now(), Phase: polllock.PhaseRunning}.Marshal()
	e.sim.SetPropertyDirect(busy, lockKey(), held)
	e.sim.DeleteIssue(gone)
	rec := &recorder{}
	e.poller(pollerOpts{out: rec}).mustCycle()
	if n := rec.count()[busy+"/triage"]; n != 0 {
		t.Errorf("%d triage dispatches on an issue another poller's run holds", n)
	}
	if l, ok := e.lock(busy); !ok || l.ID != "other" {
		t.Errorf("lock on %s = %+v (found %v), want the other poller's", busy, l, ok)
	}
}
