// Package jsonout implements the `json` and `gha-matrix` output drivers:
// the dispatch plan printed on stdout instead of dispatched (docs/cli.md,
// "The plan"). Each entry is an object with exactly the dispatch inputs
// (nine; ten, with normalized_entity, for a run of an entity-source
// harness), so a plan can be fed to any runner.
//
// Dispatch collects entries; Close writes them once, so one invocation
// yields one document even when the caller dispatches in several steps:
// `json` writes an array (`[]` when empty, never null), `gha-matrix` writes
// {"include":[…]} for a matrix job.
package jsonout

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Entry is one plan entry: the dispatch inputs, in spec order;
// normalized_entity only for runs of entity-source harnesses.
type Entry struct {
	Agent            string `json:"agent"`
	Role             string `json:"role"`
	SourceRepo       string `json:"source_repo"`
	EventType        string `json:"event_type"`
	EventPayload     string `json:"event_payload"`
	NormalizedEvent  string `json:"normalized_event"`
	SerializationKey string `json:"serialization_key"`
	WorkItem         string `json:"work_item"`
	PollLock         string `json:"poll_lock"`
	NormalizedEntity string `json:"normalized_entity,omitempty"`
}

// EntryOf renders r as a plan entry.
func EntryOf(r plan.Run) Entry {
	in := r.Inputs()
	return Entry{
		Agent: in[plan.InAgent], Role: in[plan.InRole], SourceRepo: in[plan.InSourceRepo],
		EventType: in[plan.InEventType], EventPayload: in[plan.InEventPayload],
		NormalizedEvent: in[plan.InNormalizedEvent], SerializationKey: in[plan.InSerializationKey],
		WorkItem: in[plan.InWorkItem], PollLock: in[plan.InPollLock],
		NormalizedEntity: in[plan.InNormalizedEntity],
	}
}

// Driver is the json / gha-matrix output driver.
type Driver struct {
	name   string
	w      io.Writer
	mu     sync.Mutex
	plan   []Entry
	closed bool
}

// New returns the driver named name ("json" or "gha-matrix") writing to w.
func New(name string, w io.Writer) (*Driver, error) {
	if !drivername.PrintsPlan(name) {
		return nil, fmt.Errorf("jsonout: unknown driver %q", name)
	}
	return &Driver{name: name, w: w, plan: []Entry{}}, nil
}

// Name implements output.Driver.
func (d *Driver) Name() string { return d.name }

// Dispatch implements output.Driver: it records every run in the plan.
// Results carry no Ref: a plan entry is not a run, and a poller must not
// record it in the poll lock's runs (the lock is released when the runs it
// lists have ended; whoever consumes the plan runs `fullsend run`, which
// records its own CI run).
func (d *Driver) Dispatch(_ context.Context, runs []plan.Run) []output.Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	res := make([]output.Result, len(runs))
	for i, r := range runs {
		res[i] = output.Result{Run: r}
		if d.closed {
			res[i].Err = fmt.Errorf("%s output: already written", d.name)
			continue
		}
		d.plan = append(d.plan, EntryOf(r))
	}
	return res
}

// Close implements output.Finisher: it writes the plan document once.
func (d *Driver) Close(context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var doc any = d.plan
	if d.name == drivername.GHAMatrix {
		doc = map[string][]Entry{"include": d.plan}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(d.w, "%s\n", b)
	return err
}
