package pollcycle_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
)

// heavyCore is fakeCore, except that harness a's trigger cannot decide a
// "/run heavy" comment (its cost limit stops it).
type heavyCore struct{ fakeCore }

var errCost = errors.New("trigger: evaluation stopped: runtime cost limit of 1000000 exceeded (limits.trigger_cost)")

func (c heavyCore) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	if cm := ev.Transition.Comment; cm != nil && cm.Instruction == "heavy" {
		return poll.Decision{Verdict: poll.VerdictError, Errors: []poll.TriggerError{{Harness: "a", Err: errCost}}}
	}
	return c.fakeCore.Decide(ev, nil)
}

// A change a trigger could not decide is never "no match": the harness is
// held with its checkpoint position (the cycle fails, counting it) for
// MaxDispatchAttempts cycles; then the change is quarantined with the
// reason and the harness goes on with the change after it.
func TestUndecidedTriggerIsRetriedThenQuarantined(t *testing.T) {
	d := newQuarDriver(item("P-1", "/run heavy", "/run"))
	o := &fakeOut{}
	run := func() (poll.CycleStats, error) {
		res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: d, Core: heavyCore{}, Output: o,
			JitterMax: -1, Rand: rngFor(1)})
		return res.Stats, err
	}
	for cycle := 1; cycle < poll.MaxDispatchAttempts; cycle++ {
		st, err := run()
		var ie *poll.ItemsError
		if !errors.As(err, &ie) || ie.Triggers != 1 || st.TriggerErrors != 1 || st.EventsNoMatch != 0 {
			t.Fatalf("cycle %d: err %v, trigger errors %d, no match %d; want the cycle failed on one trigger error",
				cycle, err, st.TriggerErrors, st.EventsNoMatch)
		}
		if len(o.Runs) != 0 || !d.base["P-1"].At.Equal(t0) || len(d.records) != 0 {
			t.Fatalf("cycle %d: runs %d checkpoint %v records %v; want the harness held where it was",
				cycle, len(o.Runs), d.base["P-1"].At, d.records)
		}
	}
	st, err := run()
	if !errors.Is(err, poll.ErrItemsFailed) || st.ChangesQuarantined != 1 {
		t.Fatalf("cycle %d: err %v quarantined %d; want the change quarantined", poll.MaxDispatchAttempts, err, st.ChangesQuarantined)
	}
	recs := d.records["P-1"]
	if len(recs) != 1 || recs[0].Harness != "a" || !recs[0].At.Equal(t0.Add(time.Second)) ||
		recs[0].Reason != "trigger could not decide: "+errCost.Error() {
		t.Fatalf("records = %+v", recs)
	}
	if len(o.Runs) != 1 || o.Runs[0].Event.Transition.Comment.Instruction != "" || !d.base["P-1"].At.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("runs %d checkpoint %v: want the next change run and the checkpoint past both", len(o.Runs), d.base["P-1"].At)
	}
	if st, err := run(); err != nil || st.TriggerErrors != 0 {
		t.Errorf("next cycle: %v, %d trigger errors; want nothing left to do", err, st.TriggerErrors)
	}
}

// Another harness deciding the same change is not held back by one that
// could not: it runs, and only the undecided harness keeps its position.
func TestUndecidedHarnessDoesNotHoldOthers(t *testing.T) {
	d := newQuarDriver(item("P-1", "/run both"))
	core := bothButA{}
	o := &fakeOut{}
	res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: d, Core: core, Output: o, JitterMax: -1, Rand: rngFor(1)})
	if !errors.Is(err, poll.ErrItemsFailed) || res.Stats.TriggerErrors != 1 {
		t.Fatalf("err %v trigger errors %d", err, res.Stats.TriggerErrors)
	}
	cp := d.base["P-1"]
	if len(o.Runs) != 1 || o.Runs[0].Harness != "b" || !cp.At.Equal(t0.Add(time.Second)) || !cp.Pos("a").Equal(t0) {
		t.Fatalf("runs %+v checkpoint %+v; want b run and a held at t0", o.Runs, cp)
	}
}

// bothButA matches "/run both" for b, while a's trigger cannot decide it.
type bothButA struct{ fakeCore }

func (c bothButA) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	dec := c.fakeCore.Decide(ev, nil)
	dec.Runs = dec.Runs[1:] // b only
	dec.Errors = []poll.TriggerError{{Harness: "a", Err: errCost}}
	return dec
}
