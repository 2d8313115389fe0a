// Package harness is the one loader of harness files: it decodes each
// file the agents of config.yaml register (decode*.go: File, as strictly
// as config.yaml) and turns it into a harness with a compiled trigger and
// overlays, keeping every file inside the config directory
// (docs/configuration.md). Loading reports every problem of every file at
// once, as strictyaml.Errors with file:line:col positions.
package harness

import (
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// Harness is one agent ready to be matched and dispatched. It is immutable
// after loading and safe to share between goroutines.
type Harness struct {
	Name string // agents entry name (equal to the file's name, if set)
	Role string // passed to the agent as the `role` dispatch input
	File string // path of the harness file
	// Revision identifies the file's content (Revision).
	Revision string
	// Trigger is the compiled trigger; nil means the harness runs only
	// manually (empty trigger text).
	Trigger     *trigger.Trigger
	TriggerText string
	Workflow    string        // per-harness gha-dispatch workflow; "" means the config default
	Command     []string      // what `fullsend run` and the local executor start
	Timeout     time.Duration // run timeout, default 30m
	Env         []string      // names of extra environment variables passed to the agent
	User        string        // run.user: the agent's identity ("" = sandbox.DefaultUser)
	Isolation   string        // run.isolation: "user" (default) or "none"
	Enabled     bool          // from the agents entry; Registry holds enabled harnesses only
	// CommandLine and CommandCol locate Command[0] in File (0 when unset).
	CommandLine, CommandCol int
	// Entity is the entity-source opt-in; nil for an event-only harness,
	// whose trigger sees `event` alone. When set, Trigger was compiled by
	// trigger.CompileEntity (variables entity and a nullable event).
	Entity *EntitySources
	// TriggerLine and TriggerCol locate the trigger text in File.
	TriggerLine, TriggerCol int
	// Report is what people see on the item about its runs (package
	// feedback; DefaultReport when the file sets none).
	Report Report
	// Steer is the `steer:` key (harness.DefaultSteer when the file
	// sets none): follow-ups delivered into the run in progress.
	Steer Steer
	// Overlays are the compiled `overlays:` entries, in file order; nil
	// when none (SettingsFor applies them).
	Overlays []Overlay
}

// EntitySources is a harness's `entity:` key, defaults applied.
type EntitySources struct {
	Sources []string   // systems whose entities the trigger is evaluated on
	MinRole event.Role // the harness's min_role, else authorization.min_role
	// Every is the least time between two scheduled evaluations of one
	// entity (entity.every); 0 means every poll cycle.
	Every time.Duration
	// RetryMax and RetryBackoff are entity.retry: the runs of one entity
	// version started again after one that ended without success, and the
	// wait before the first of them (doubled after each).
	RetryMax     int
	RetryBackoff time.Duration
}

// HasSource reports whether the harness is evaluated on entities of system.
func (e *EntitySources) HasSource(system string) bool {
	return e != nil && slices.Contains(e.Sources, system)
}

// Matches evaluates the trigger against a prepared event. A manual-only
// harness never matches. An evaluation error is returned with false;
// callers count it as no match and log it with the harness name.
func (h *Harness) Matches(in *trigger.Input) (bool, error) {
	if h.Trigger == nil {
		return false, nil
	}
	return h.Trigger.Eval(in)
}

// Registry is the ordered set of enabled harnesses, in the order of the
// agents list. It is immutable after Load and safe for concurrent use.
type Registry struct {
	list   []*Harness
	byName map[string]*Harness
}

// NewRegistry builds a registry from harnesses in order; later duplicates
// of a name are ignored (config loading already rejects them). It is
// meant for tests and callers that assemble harnesses themselves.
func NewRegistry(hs ...*Harness) *Registry {
	r := &Registry{byName: make(map[string]*Harness, len(hs))}
	for _, h := range hs {
		if _, dup := r.byName[h.Name]; dup {
			continue
		}
		r.list = append(r.list, h)
		r.byName[h.Name] = h
	}
	return r
}

// All returns the enabled harnesses in configuration order. The slice is
// a copy; the harnesses are shared.
func (r *Registry) All() []*Harness { return append([]*Harness(nil), r.list...) }

// Get returns the enabled harness called name.
func (r *Registry) Get(name string) (*Harness, bool) {
	h, ok := r.byName[name]
	return h, ok
}

// Len returns the number of enabled harnesses.
func (r *Registry) Len() int { return len(r.list) }

// EntityHarnesses are the enabled harnesses that list system among their
// entity sources, in registration order.
func (r *Registry) EntityHarnesses(system string) []*Harness {
	var out []*Harness
	for _, h := range r.list {
		if h.Entity != nil && slices.Contains(h.Entity.Sources, system) {
			out = append(out, h)
		}
	}
	return out
}
