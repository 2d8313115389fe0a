package jirapoll_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/runner"
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

// simStore is the emulator's issue properties as `fullsend run` reads and
// writes them (runner.LockStore).
type simStore struct{ e *env }

func (s simStore) Get(_ context.Context, key, prop string) ([]byte, bool, error) {
	raw, ok := s.e.sim.Property(key, prop)
	return raw, ok, nil
}

func (s simStore) Put(_ context.Context, key, prop string, raw []byte) error {
	s.e.sim.SetPropertyDirect(key, prop, raw)
	return nil
}

func (s simStore) Delete(_ context.Context, key, prop string) error {
	s.e.sim.SetPropertyDirect(key, prop, nil)
	return nil
}

// runnerOf is the runner side of run's poll lock, as `fullsend run` of
// the CI run ref holds it.
func (e *env) runnerOf(run plan.Run, ref plan.Ref) *runner.Locker {
	l, err := runner.NewLocker(simStore{e}, run.PollLock, time.Hour, ref)
	if err != nil {
		e.t.Fatal(err)
	}
	l.Now = e.clock.Now
	return l
}

// With several runs on the issue, the lock is written once, listing one
// entry per planned run, and the poller does not write it again after the
// dispatch: each run claims an entry when it starts, the first to end
// leaves the lock to the other, and the last one deletes it.
func TestRunsShareThePlannedLock(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "/fs-triage")[0] // triage and audit
	rec := &recorder{}
	before := e.sim.Calls()["PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"]
	if st := e.poller(pollerOpts{out: rec}).mustCycle(); st.DispatchesScheduled != 2 {
		t.Fatalf("stats = %+v", st)
	}
	// the lock and the checkpoint (this output finds no runs by key, so no
	// intent): no record write
	if puts := e.sim.Calls()["PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"] - before; puts != 2 {
		t.Errorf("%d property writes, want 2 (lock, checkpoint)", puts)
	}
	l, ok := e.lock(k)
	want := polllock.Placeholders("recorder", 2)
	if !ok || l.Phase != polllock.PhasePending || !slices.Equal(l.Runs, want) {
		t.Fatalf("lock = %+v (found %v), want pending with %v", l, ok, want)
	}
	lc, _ := e.lastCheck(k)
	if lc.Lock != l.ID || len(lc.Runs) != 2 {
		t.Errorf("lastCheck = %+v, want both runs under lock id %s", lc, l.ID)
	}
	runs := rec.all()
	ctx := context.Background()
	first, second := e.runnerOf(runs[0], lc.Runs[0]), e.runnerOf(runs[1], lc.Runs[1])
	for _, r := range []*runner.Locker{first, second} {
		if err := r.Acquire(ctx); err != nil {
			t.Fatalf("run %s could not take the lock: %v", r.Run.ID, err)
		}
	}
	if got, err := first.Release(ctx); err != nil || got != runner.ReleaseKept {
		t.Fatalf("first run's release = %v (%v), want the lock kept for the other", got, err)
	}
	if got, err := second.Release(ctx); err != nil || got != runner.ReleaseDeleted {
		t.Fatalf("last run's release = %v (%v), want the lock deleted", got, err)
	}
	if l, ok := e.lock(k); ok {
		t.Errorf("lock left after both runs ended: %+v", l)
	}
}

// When the runs started do not fit the lock (one of two harnesses failed),
// the poller corrects it; a run that already took the lock over (phase
// running, its own entry) keeps it: the poller drops the failed run's
// placeholder without turning the phase back to dispatched or dropping
// the runner's entry.
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
		if err := e.runnerOf(run, plan.Ref{Driver: "recorder", ID: "1"}).Acquire(context.Background()); err != nil {
			t.Errorf("triage run could not take the lock: %v", err)
		}
	}}
	rec.setFail("audit", true)
	p := e.poller(pollerOpts{out: rec})
	if st := p.mustCycle(); st.DispatchesScheduled != 1 {
		t.Fatalf("stats = %+v", st)
	}
	l, ok := e.lock(k)
	if !ok || l.Phase != polllock.PhaseRunning || polllock.LockOwner(l.ID) != "poller-1" {
		t.Fatalf("lock = %+v (found %v), want the runner's running lock", l, ok)
	}
	if want := []plan.Ref{{Driver: "recorder", ID: "1"}}; !slices.Equal(l.Runs, want) {
		t.Errorf("runs = %+v, want only %v (the failed run's placeholder dropped)", l.Runs, want)
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
