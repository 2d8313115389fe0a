package jirapoll_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// killer kills a poller at a point of its cycle: from then on none of its
// writes lands (every property write and delete fails, as for a process
// that is gone) and its output starts nothing.
type killer struct {
	e     *env
	point string // lock, dispatch, record, checkpoint, or ""
	dead  bool
}

func (k *killer) at(point string) {
	if k.point != point || k.dead {
		return
	}
	k.dead = true
	for _, ep := range []string{"PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}",
		"DELETE /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"} {
		k.e.sim.InjectFault(jirasim.Fault{Endpoint: ep, Status: 503, Times: -1})
	}
}

type killDriver struct {
	poll.Driver
	k *killer
}

func (d killDriver) Acquire(ctx context.Context, items []*poll.Item) error {
	err := d.Driver.Acquire(ctx, items)
	d.k.at("lock")
	return err
}

func (d killDriver) Dispatched(ctx context.Context, items []*poll.Item) error {
	err := d.Driver.Dispatched(ctx, items)
	d.k.at("record")
	return err
}

func (d killDriver) Advance(ctx context.Context, it *poll.Item, cp poll.Checkpoint) error {
	err := d.Driver.Advance(ctx, it, cp)
	d.k.at("checkpoint")
	return err
}

type killOutput struct {
	*recorder
	k *killer
}

func (o killOutput) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	if o.k.dead {
		res := make([]output.Result, len(runs))
		for i := range res {
			res[i] = output.Result{Run: runs[i], Err: fmt.Errorf("killed")}
		}
		return res
	}
	res := o.recorder.Dispatch(ctx, runs)
	o.k.at("dispatch")
	return res
}

// The give-back under crashes: a poller dispatches a change whose run
// stays queued past the stale threshold; a second poller takes the
// unclaimed lock over and is killed at each point of its cycle (or not
// at all, or is the same poller process again); a third one cycles after
// the next stale threshold. Then every run dispatched starts, late, in
// the order dispatched, and the pollers cycle until nothing is left:
// each harness's agent starts exactly once for the change, no change is
// lost and no lock is left.
func TestTakeoverCrashAtEachPointStartsOnce(t *testing.T) {
	const stale = 4 * time.Second
	for _, tc := range []struct{ crash, second string }{
		{"", "b"}, {"", "a"}, {"lock", "b"}, {"dispatch", "b"}, {"record", "b"}, {"checkpoint", "b"},
	} {
		t.Run(fmt.Sprintf("crash=%q/second=%s", tc.crash, tc.second), func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			k := e.issues(1, seeded, "/fs-triage")[0] // triage and audit
			rec := &recorder{}
			if st := e.poller(pollerOpts{id: "a", out: rec, stale: stale}).mustCycle(); st.DispatchesScheduled != 2 {
				t.Fatalf("stats = %+v", st)
			}
			e.clock.Advance(5 * time.Second)
			kill := &killer{e: e, point: tc.crash}
			second := e.poller(pollerOpts{id: tc.second, out: killOutput{rec, kill}, stale: stale})
			second.o.Driver = killDriver{Driver: second.o.Driver, k: kill}
			_, _ = second.cycle(context.Background()) // a killed cycle fails
			e.sim.ClearFaults()
			e.clock.Advance(5 * time.Second)
			third := e.poller(pollerOpts{id: "c", out: rec, stale: stale})
			s := &starts{t: t}
			started := 0
			for round := 0; round < 4; round++ {
				third.mustCycle()
				var runners []*runner.Locker
				for ; started < len(rec.all()); started++ {
					run := rec.all()[started]
					l := e.lateRunner(run, plan.Ref{Driver: "recorder", ID: fmt.Sprint(started + 1)}, stale, 0)
					if s.start(l, run.Harness) {
						runners = append(runners, l)
					}
				}
				for _, l := range runners {
					if _, err := l.Release(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				e.clock.Advance(5 * time.Second)
			}
			t.Logf("dispatches %v, agents started %v", rec.count(), s.runs)
			if s.runs["triage"] != 1 || s.runs["audit"] != 1 {
				t.Errorf("agents started %v over %d dispatches %v, want each harness once", s.runs, len(rec.all()), rec.count())
			}
			if l, ok := e.lock(k); ok {
				t.Errorf("lock left: %+v", l)
			}
			if lc, _ := e.lastCheck(k); lc.TS.IsZero() || len(lc.Harness) > 0 || len(lc.Intents) > 0 {
				t.Errorf("lastCheck %+v: want the change checkpointed, nothing to retry", lc)
			}
		})
	}
}
