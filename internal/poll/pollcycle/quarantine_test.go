package pollcycle_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
)

// quarDriver keeps each item's checkpoint between cycles and a
// quarantine record per item, like jirapoll does on issue properties.
type quarDriver struct {
	fakeDriver
	mu       sync.Mutex
	all      []*poll.Item
	base     map[string]poll.Checkpoint
	attempts map[string]int // item/harness → consecutive failures
	records  map[string][]poll.Poison
}

func newQuarDriver(items ...*poll.Item) *quarDriver {
	d := &quarDriver{all: items, base: map[string]poll.Checkpoint{}, attempts: map[string]int{}, records: map[string][]poll.Poison{}}
	for _, it := range items {
		d.base[it.ID] = it.Base
	}
	return d
}

func (d *quarDriver) Discover(context.Context) (*poll.Discovery, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	disc := &poll.Discovery{Candidates: len(d.all)}
	for _, src := range d.all {
		it := *src
		it.Base = d.base[it.ID].Clone()
		if it.Cutoff.After(it.Base.Min()) {
			disc.Eligible = append(disc.Eligible, &it)
		}
	}
	return disc, nil
}

func (d *quarDriver) Advance(_ context.Context, it *poll.Item, cp poll.Checkpoint) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.base[it.ID] = cp
	return nil
}

func (d *quarDriver) Capabilities() poll.Capabilities { return poll.Capabilities{Quarantine: d} }

func (d *quarDriver) Failed(_ context.Context, it *poll.Item, p poll.Poison) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.attempts[it.ID+"/"+p.Harness]++
	return d.attempts[it.ID+"/"+p.Harness], nil
}

func (d *quarDriver) Quarantine(_ context.Context, it *poll.Item, p poll.Poison, _ int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.records[it.ID] = append(d.records[it.ID], p)
	return nil
}

func runCycle(t *testing.T, d poll.Driver, o *fakeOut, validate func(*event.Event) error) (poll.CycleStats, error) {
	t.Helper()
	res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: d, Core: fakeCore{}, Output: o, Validate: validate,
		JitterMax: -1, Rand: rngFor(1)})
	return res.Stats, err
}

// An event that fails validation is quarantined (recorded on the item,
// counted, the cycle fails) and the checkpoint moves past it.
func TestInvalidEventIsQuarantined(t *testing.T) {
	it := item("P-1", "/run bad", "/run good")
	d := newQuarDriver(it)
	invalid := func(ev *event.Event) error {
		if ev.Transition.Comment.Instruction == "bad" {
			return errors.New("/source/raw_action: too long")
		}
		return nil
	}
	o := &fakeOut{}
	st, err := runCycle(t, d, o, invalid)
	if !errors.Is(err, poll.ErrItemsFailed) || st.ChangesQuarantined != 1 || st.EventsInvalid != 1 {
		t.Fatalf("err %v quarantined %d invalid %d, want ErrItemsFailed, 1, 1", err, st.ChangesQuarantined, st.EventsInvalid)
	}
	recs := d.records["P-1"]
	if len(recs) != 1 || recs[0].Harness != "" || !recs[0].At.Equal(t0.Add(time.Second)) || recs[0].Reason == "" {
		t.Fatalf("records = %+v", recs)
	}
	if len(o.Runs) != 1 || !d.base["P-1"].At.Equal(t0.Add(2*time.Second)) {
		t.Errorf("runs %d checkpoint %v: want the valid change dispatched and the checkpoint past both", len(o.Runs), d.base["P-1"].At)
	}
	if _, err := runCycle(t, d, o, invalid); err != nil {
		t.Errorf("next cycle: %v, want nothing left to do", err)
	}
}

// A change whose dispatch keeps failing while the output starts other
// runs is quarantined after MaxDispatchAttempts cycles; an output that is
// down for every run quarantines nothing.
func TestPoisonDispatchIsQuarantinedAfterBoundedAttempts(t *testing.T) {
	t.Run("output healthy for other runs", func(t *testing.T) {
		d := newQuarDriver(item("P-1", "/run both"), item("P-2", "/run"))
		o := &fakeOut{Fail: map[string]bool{"b": true}}
		for cycle := 1; cycle <= poll.MaxDispatchAttempts; cycle++ {
			if cycle > 1 { // P-2 gets a new change every cycle, so the output keeps starting runs
				d.all[1] = item("P-2", make([]string, cycle)...)
				d.all[1].Changes[cycle-1].Event.Transition.Comment.Command = "/run"
			}
			st, _ := runCycle(t, d, o, nil)
			quarantined := cycle == poll.MaxDispatchAttempts
			if (st.ChangesQuarantined == 1) != quarantined {
				t.Fatalf("cycle %d: quarantined %d", cycle, st.ChangesQuarantined)
			}
			if pending := d.base["P-1"].Pending(); pending == quarantined {
				t.Fatalf("cycle %d: retry position kept = %v", cycle, pending)
			}
		}
		if recs := d.records["P-1"]; len(recs) != 1 || recs[0].Harness != "b" || recs[0].Change == "" {
			t.Fatalf("records = %+v", recs)
		}
	})
	t.Run("output down", func(t *testing.T) {
		d := newQuarDriver(item("P-1", "/run"))
		o := &fakeOut{Fail: map[string]bool{"a": true}}
		for range poll.MaxDispatchAttempts + 2 {
			if st, _ := runCycle(t, d, o, nil); st.ChangesQuarantined != 0 || st.DispatchesFailed != 1 {
				t.Fatalf("quarantined %d failed %d while the output is down", st.ChangesQuarantined, st.DispatchesFailed)
			}
		}
		if len(d.records) != 0 || !d.base["P-1"].At.Equal(t0) {
			t.Fatalf("records %v checkpoint %v: the change must wait for the output", d.records, d.base["P-1"].At)
		}
	})
}

// The events one edit maps to share the change's id (a changelog entry
// adding many labels): when they are invalid, the change is quarantined
// once, and each event is validated once per cycle.
func TestOneEditIsQuarantinedOnce(t *testing.T) {
	it := &poll.Item{ID: "P-1", Base: poll.Checkpoint{At: t0}, Cutoff: t0.Add(time.Second)}
	for i := range 50 {
		ev := &event.Event{Repo: "acme/platform",
			Entity:     event.Entity{Kind: event.KindWorkItem, ID: 1, Key: "P-1", URL: "https://jira.example/browse/P-1"},
			Transition: event.Transition{Kind: event.LabelChanged, Label: &event.Label{Name: "l" + string(rune('a'+i%26)), Action: "added"}},
			Actor:      event.Actor{ID: "u", Kind: event.ActorHuman, Role: "write"},
			State:      event.State{Labels: []string{}}, Source: event.Source{System: event.SystemJira, RawType: "changelog", RawAction: "labels"}}
		it.Changes = append(it.Changes, poll.Change{At: t0.Add(time.Second), Event: ev})
	}
	d := newQuarDriver(it)
	var mu sync.Mutex
	validations := 0
	invalid := func(*event.Event) error {
		mu.Lock()
		defer mu.Unlock()
		validations++
		return errors.New("/state/labels: too many")
	}
	st, err := runCycle(t, d, &fakeOut{}, invalid)
	if !errors.Is(err, poll.ErrItemsFailed) || st.ChangesQuarantined != 1 || st.EventsInvalid != 50 {
		t.Fatalf("err %v quarantined %d invalid %d, want ErrItemsFailed, 1, 50", err, st.ChangesQuarantined, st.EventsInvalid)
	}
	if recs := d.records["P-1"]; len(recs) != 1 {
		t.Errorf("%d quarantine records, want 1", len(recs))
	}
	if validations != 50 {
		t.Errorf("%d validations, want one per event", validations)
	}
}

// tooLarge refuses every run: its inputs can never fit the platform's
// limit.
type tooLarge struct{}

func (tooLarge) Name() string { return "too-large" }

func (tooLarge) Dispatch(_ context.Context, runs []plan.Run) []output.Result {
	res := make([]output.Result, len(runs))
	for i, r := range runs {
		res[i] = output.Result{Run: r, Err: fmt.Errorf("gha-dispatch: %w (%w)", plan.ErrInputsTooLarge, output.ErrNotStarted)}
	}
	return res
}

// Inputs that can never fit are quarantined at once, with the reason,
// even when the output started nothing else in the cycle: the change does
// not loop on the next cycles.
func TestInputsThatCannotFitAreQuarantinedAtOnce(t *testing.T) {
	d := newQuarDriver(item("P-1", "/run"))
	res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: d, Core: fakeCore{}, Output: tooLarge{},
		JitterMax: -1, Rand: rngFor(1)})
	if !errors.Is(err, poll.ErrItemsFailed) || res.Stats.ChangesQuarantined != 1 {
		t.Fatalf("err %v, quarantined %d; want the change quarantined in the first cycle", err, res.Stats.ChangesQuarantined)
	}
	recs := d.records["P-1"]
	if len(recs) != 1 || recs[0].Harness != "a" || !strings.Contains(recs[0].Reason, "too large") {
		t.Fatalf("records %+v, want one for harness a with the reason", recs)
	}
	if !d.base["P-1"].At.Equal(t0.Add(time.Second)) || d.base["P-1"].Pending() {
		t.Errorf("checkpoint %+v: want it past the change", d.base["P-1"])
	}
}
