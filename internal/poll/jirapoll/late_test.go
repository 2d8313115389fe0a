package jirapoll_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/jsonout"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// A run that starts late, as CI queues make runs start: `fullsend run`
// with the given stale threshold, the pollers' pending TTL, and its
// claim's wait on the world's clock.
func (e *env) lateRunner(run plan.Run, ref plan.Ref, stale, pending time.Duration) *runner.Locker {
	l := e.runnerOf(run, ref)
	l.StaleThreshold, l.PendingTTL, l.Sleep = stale, pending, e.sleep
	return l
}

// starts counts the agents the runs start: a run starts its agent when it
// takes its lock over, and ends by releasing it.
type starts struct {
	t    *testing.T
	mu   sync.Mutex
	runs map[string]int // harness → agents started
}

func (s *starts) start(l *runner.Locker, harness string) bool {
	s.t.Helper()
	err := l.Acquire(context.Background())
	if err != nil && !runner.IsLostLock(err) {
		s.t.Fatalf("run %s: %v", harness, err)
	}
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs = map[string]int{}
	}
	s.runs[harness]++
	return true
}

// A run that starts 6 s after its dispatch, with stale_threshold 4s, and
// no poller cycle in between: the lock is stale by age but still its
// own, so it proceeds; the later cycles dispatch nothing more. With a
// cycle in between (5 s after the dispatch), that cycle takes the stale
// lock over and dispatches the change again: the late run then finds the
// lock taken over and exits, and the new run starts. Either way the
// agent starts exactly once.
func TestLateRunStartsTheAgentOnce(t *testing.T) {
	for _, between := range []bool{false, true} {
		name := map[bool]string{false: "no cycle before the run", true: "a cycle before the run"}[between]
		t.Run(name, func(t *testing.T) {
			const stale = 4 * time.Second
			e := newEnv(t, jirasim.Options{})
			k := e.issues(1, seeded, "just a note")[0] // audit only: one run
			rec := &recorder{}
			p := e.poller(pollerOpts{out: rec, stale: stale})
			if st := p.mustCycle(); st.DispatchesScheduled != 1 {
				t.Fatalf("stats = %+v", st)
			}
			e.clock.Advance(5 * time.Second)
			if between {
				if st := p.mustCycle(); st.DispatchesScheduled != 1 {
					t.Fatalf("the cycle after the stale threshold dispatched %d runs, want the change once more (stats %+v)", st.DispatchesScheduled, st)
				}
			}
			e.clock.Advance(time.Second)
			s := &starts{t: t}
			var runners []*runner.Locker
			for i, run := range rec.all() {
				l := e.lateRunner(run, plan.Ref{Driver: "recorder", ID: string(rune('1' + i))}, stale, 0)
				if s.start(l, run.Harness) {
					runners = append(runners, l)
				}
			}
			if s.runs["audit"] != 1 {
				t.Fatalf("agents started: %v, want audit once", s.runs)
			}
			p.mustCycle() // while the run works: nothing to do
			for _, l := range runners {
				if _, err := l.Release(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			e.clock.Advance(time.Minute)
			p.mustCycle()
			want := 1
			if between {
				want = 2 // the first run never started
			}
			if n := rec.count()[k+"/audit"]; n != want {
				t.Errorf("%d dispatches, want %d", n, want)
			}
			if l, ok := e.lock(k); ok {
				t.Errorf("lock left: %+v", l)
			}
		})
	}
}

// A new change on an issue whose runs are still queued (their lock past
// the pending TTL, no run claimed it) takes the lock over: the cycle
// dispatches the queued runs' changes again with the new one, once; the
// queued runs, when they start, find the lock taken over and exit, and
// the new runs start. No agent starts twice, none is lost.
func TestTakenOverLockDispatchesItsChangesAgain(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "/fs-triage")[0] // triage and audit
	rec := &recorder{}
	p := e.poller(pollerOpts{out: rec, stale: time.Hour, pending: 2 * time.Second})
	if st := p.mustCycle(); st.DispatchesScheduled != 2 {
		t.Fatalf("stats = %+v", st)
	}
	queued := rec.all()
	e.clock.Advance(3 * time.Second)
	e.sim.AddComment(k, alice, "a note") // audit only
	st := p.mustCycle()
	if st.DispatchesScheduled != 2 || st.LocksAcquired != 1 {
		t.Fatalf("after the pending TTL: stats %+v, want the lock taken over and both harnesses dispatched", st)
	}
	again := rec.all()[2:]
	s := &starts{t: t}
	for i, run := range queued {
		if s.start(e.lateRunner(run, plan.Ref{Driver: "recorder", ID: string(rune('1' + i))}, time.Hour, 2*time.Second), run.Harness) {
			t.Fatalf("queued run %s started although its lock was taken over", run.Harness)
		}
	}
	var runners []*runner.Locker
	for i, run := range again {
		l := e.lateRunner(run, plan.Ref{Driver: "recorder", ID: string(rune('3' + i))}, time.Hour, 2*time.Second)
		if !s.start(l, run.Harness) {
			t.Fatalf("run %s of the taking cycle lost its lock", run.Harness)
		}
		runners = append(runners, l)
		if run.Harness == "audit" && run.Event.Transition.Comment.Body != "a note" {
			t.Errorf("audit run carries %q, want the newest change", run.Event.Transition.Comment.Body)
		}
	}
	for _, l := range runners {
		if _, err := l.Release(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Advance(time.Minute)
	p.mustCycle()
	if got := rec.count(); got[k+"/triage"] != 2 || got[k+"/audit"] != 2 {
		t.Errorf("dispatches %v, want each harness once per lock", got)
	}
	if s.runs["triage"] != 1 || s.runs["audit"] != 1 {
		t.Errorf("agents started %v, want each harness once", s.runs)
	}
}

// printer is the json output, recording the runs it printed.
type printer struct {
	*jsonout.Driver
	mu   sync.Mutex
	runs []plan.Run
}

func (p *printer) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	p.mu.Lock()
	p.runs = append(p.runs, runs...)
	p.mu.Unlock()
	return p.Driver.Dispatch(ctx, runs)
}

func newPrinter(t *testing.T) *printer {
	d, err := jsonout.New("json", &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	return &printer{Driver: d}
}

// With the json output nobody may ever claim the lock (the plan is only
// printed): it blocks the issue for the pending TTL, not the stale
// threshold. A plan run that claims its lock late, while no new change
// took it over, proceeds and nothing is printed again; one whose lock a
// new change took over exits, and the plan printed for the new change
// runs.
func TestPrintedPlanLockBlocksForThePendingTTL(t *testing.T) {
	const pending, stale = 2 * time.Second, time.Hour
	e := newEnv(t, jirasim.Options{})
	keys := e.issues(2, seeded, "/fs-triage")
	late, taken := keys[0], keys[1]
	first := newPrinter(t)
	if st := e.poller(pollerOpts{out: first, stale: stale, pending: pending}).mustCycle(); st.DispatchesScheduled != 4 {
		t.Fatalf("stats = %+v", st)
	}
	if l, ok := e.lock(taken); !ok || l.Phase != polllock.PhasePending || len(l.Runs) != 0 {
		t.Fatalf("lock = %+v (present %v), want pending without entries", l, ok)
	}
	e.clock.Advance(time.Second)
	e.sim.AddComment(taken, alice, "a note")
	blocked := newPrinter(t)
	if st := e.poller(pollerOpts{out: blocked, stale: stale, pending: pending}).mustCycle(); st.DispatchesScheduled != 0 {
		t.Fatalf("within the pending TTL the lock blocks: stats %+v", st)
	}
	e.clock.Advance(2 * time.Second)
	second := newPrinter(t)
	if st := e.poller(pollerOpts{out: second, stale: stale, pending: pending}).mustCycle(); st.DispatchesScheduled != 2 {
		t.Fatalf("after the pending TTL: stats %+v, want %s's changes printed again", st, taken)
	}
	s := &starts{t: t}
	for i, run := range append(first.runs, second.runs...) {
		key := run.Event.Entity.Key
		if s.start(e.lateRunner(run, plan.Ref{Driver: "local", ID: "plan-" + string(rune('a'+i))}, stale, pending), key+"/"+run.Harness) {
			continue
		}
		if key != taken || i >= len(first.runs) {
			t.Errorf("run %s/%s (plan entry %d) lost its lock", key, run.Harness, i)
		}
	}
	for _, h := range []string{"triage", "audit"} {
		for _, k := range []string{late, taken} {
			if n := s.runs[k+"/"+h]; n != 1 {
				t.Errorf("%s/%s started %d times, want once", k, h, n)
			}
		}
	}
	third := newPrinter(t)
	if st := e.poller(pollerOpts{out: third, stale: stale, pending: pending}).mustCycle(); st.DispatchesScheduled != 0 {
		t.Errorf("claimed locks printed again: stats %+v", st)
	}
}

// A cycle that took an unclaimed lock over and then failed every dispatch
// writes the rewound checkpoint before removing its lock: the next cycle
// dispatches the given-back changes at once, without waiting for a new
// change or the stale threshold.
func TestFailedTakeoverKeepsTheGiveBack(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issues(1, seeded, "/fs-triage")[0] // triage and audit
	rec := &recorder{}
	p := e.poller(pollerOpts{out: rec, stale: time.Hour, pending: 2 * time.Second})
	p.mustCycle()
	queued := rec.all()
	e.clock.Advance(3 * time.Second)
	e.sim.AddComment(k, alice, "a note")
	rec.setFail("triage", true)
	rec.setFail("audit", true)
	if res, _ := p.cycle(context.Background()); res.Stats.DispatchesFailed != 2 {
		t.Fatalf("stats %+v, want both dispatches failed", res.Stats)
	}
	if l, ok := e.lock(k); ok {
		t.Fatalf("lock left after the failed takeover: %+v", l)
	}
	rec.setFail("triage", false)
	rec.setFail("audit", false)
	if st := p.mustCycle(); st.DispatchesScheduled != 2 {
		t.Fatalf("the next cycle dispatched %d runs, want triage and audit (stats %+v)", st.DispatchesScheduled, st)
	}
	s := &starts{t: t}
	for i, run := range rec.all() {
		s.start(e.lateRunner(run, plan.Ref{Driver: "recorder", ID: string(rune('1' + i))}, time.Hour, 2*time.Second), run.Harness)
	}
	if s.runs["triage"] != 1 || s.runs["audit"] != 1 || len(rec.all()) != len(queued)+2 {
		t.Errorf("agents started %v over dispatches %v, want each harness once", s.runs, rec.count())
	}
}
