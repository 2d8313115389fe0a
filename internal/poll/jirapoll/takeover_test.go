package jirapoll_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// queued is one issue whose /fs-triage comment poller "a" dispatched
// (triage and audit, pending TTL 2 s, stale threshold an hour), and whose
// runs are still queued past the pending TTL; po is the poller's options.
func queued(e *env) (key string, rec *recorder, po pollerOpts) {
	e.t.Helper()
	key = e.issues(1, seeded, "/fs-triage")[0]
	rec = &recorder{}
	po = pollerOpts{id: "a", out: rec, stale: time.Hour, pending: 2 * time.Second}
	if st := e.poller(po).mustCycle(); st.DispatchesScheduled != 2 {
		e.t.Fatalf("stats = %+v", st)
	}
	e.clock.Advance(3 * time.Second)
	return key, rec, po
}

// A takeover slowed between its read and its write, while the runs of
// the lock it takes over start late: a 429 whose Retry-After (60 s, far
// past the 3 s claim window) the takeover's write would wait out, or a
// write that spends 5 s in flight. The queued runs claim their lock and
// confirm the claim meanwhile, and start their agents. The takeover must
// then not land and dispatch their changes again: it is not sent after
// the claim window (the lock is read again, and is claimed now), or,
// answered after it, it is undone (the lock read is put back, and the
// run's next refresh claims it again). Each change's agent starts once;
// the new change is dispatched once the runs have ended.
func TestSlowTakeoverAndLateClaimStartOnce(t *testing.T) {
	const putProp = "PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"
	for _, tc := range []struct {
		name   string
		inject func(e *env, claim func())
	}{
		{"a Retry-After between the read and the write", func(e *env, claim func()) {
			e.sim.InjectFault(jirasim.Fault{Endpoint: putProp, Status: 429, RetryAfter: time.Minute})
			e.whenWaiting(30*time.Second, claim)
		}},
		{"the write in flight past the claim window", func(e *env, claim func()) {
			e.sim.InjectFault(jirasim.Fault{Endpoint: putProp, Before: func() {
				e.clock.Advance(2 * time.Second)
				claim()
			}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			e.worldClient = true // the pollers' waits pass the world's time
			k, rec, po := queued(e)
			e.sim.AddComment(k, alice, "a note")

			started := map[string]int{} // harness/comment → agents started
			var running []*runner.Locker
			begun := 0
			start := func() {
				for ; begun < len(rec.all()); begun++ {
					run := rec.all()[begun]
					l := e.lateRunner(run, plan.Ref{Driver: "recorder", ID: fmt.Sprint(begun + 1)}, time.Hour, 2*time.Second)
					switch err := l.Acquire(context.Background()); {
					case err == nil:
						started[run.Harness+"/"+run.Event.Transition.Comment.Body]++
						running = append(running, l)
					case !runner.IsLostLock(err):
						t.Errorf("run %s: %v", run.Harness, err)
					}
				}
			}
			tc.inject(e, start)
			po.id = "b"
			p := e.poller(po)
			st := p.mustCycle() // the slow takeover, the runs claiming meanwhile
			if begun != 2 || len(running) != 2 {
				t.Fatalf("%d runs began during the takeover, %d started: want both queued runs started meanwhile", begun, len(running))
			}
			if st.DispatchesScheduled != 0 {
				t.Errorf("the slow takeover dispatched %d runs, want none (stats %+v)", st.DispatchesScheduled, st)
			}
			for _, l := range running {
				if _, reason, err := l.Refresh(context.Background()); err != nil || reason != "" {
					t.Errorf("refresh of a started run: %q %v", reason, err)
				}
			}
			for round := 0; round < 3; round++ {
				for _, l := range running {
					if _, err := l.Release(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				running = nil
				e.clock.Advance(5 * time.Second)
				p.mustCycle()
				start()
			}
			want := map[string]int{"triage//fs-triage": 1, "audit//fs-triage": 1, "audit/a note": 1}
			if fmt.Sprint(started) != fmt.Sprint(want) {
				t.Errorf("agents started %v over dispatches %v, want %v", started, rec.count(), want)
			}
			if l, ok := e.lock(k); ok {
				t.Errorf("lock left: %+v", l)
			}
		})
	}
}

// A lock owed a give-back whose from lies in the future (anyone who can
// edit the property can write one) is not believed: taken over, it would
// give nothing back, and the changes its runs never ran would be lost.
// The give-back then starts from the issue's creation, as for a corrupt
// lastCheck: the changes may run again, none is lost.
func TestGiveBackFromTheFuture(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k, rec, po := queued(e)
	l, _ := e.lock(k)
	l.From.TS = e.siteNow().Add(365 * 24 * time.Hour)
	e.sim.SetPropertyDirect(k, lockKey(), l.Marshal())
	e.sim.AddComment(k, alice, "a note")
	po.id = "b"
	if st := e.poller(po).mustCycle(); st.DispatchesScheduled != 2 {
		t.Fatalf("the takeover dispatched %d runs, want triage given back and audit (stats %+v)", st.DispatchesScheduled, st)
	}
	if got := rec.count(); got[k+"/triage"] != 2 || got[k+"/audit"] != 2 {
		t.Errorf("dispatches %v, want each harness again", got)
	}
}

// A takeover whose write a 429's Retry-After holds past the claim window,
// with no run claiming meanwhile: the lock is read again (once the
// Retry-After has passed), is still the same unclaimed lock, and is taken
// over within the window of that read, in the same cycle. The queued runs
// then find it taken over; each harness's agent starts once.
func TestSlowTakeoverReadsAgainAndTakesOver(t *testing.T) {
	const putProp = "PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"
	e := newEnv(t, jirasim.Options{})
	e.worldClient = true
	k, rec, po := queued(e)
	queuedRuns := rec.all()
	e.sim.AddComment(k, alice, "a note")
	e.sim.InjectFault(jirasim.Fault{Endpoint: putProp, Status: 429, RetryAfter: time.Minute})
	po.id = "b"
	st := e.poller(po).mustCycle()
	if st.DispatchesScheduled != 2 || st.LocksAcquired != 1 {
		t.Fatalf("stats %+v: want the lock taken over after the second read, both harnesses dispatched", st)
	}
	s := &starts{t: t}
	for i, run := range rec.all() {
		l := e.lateRunner(run, plan.Ref{Driver: "recorder", ID: fmt.Sprint(i + 1)}, time.Hour, 2*time.Second)
		if started := s.start(l, run.Harness); started == (i < len(queuedRuns)) {
			t.Errorf("run %d (%s): started %v", i+1, run.Harness, started)
		}
	}
	if s.runs["triage"] != 1 || s.runs["audit"] != 1 {
		t.Errorf("agents started %v, want each harness once", s.runs)
	}
}
