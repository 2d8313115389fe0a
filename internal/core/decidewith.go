package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Reasons an entity-source harness was denied evaluation
// (EntityDenial.Reason), bounded for metric labels.
const (
	// DenialUnresolved: the entity could not be resolved (read or
	// enumerated) at all, or no resolver was available for its system.
	DenialUnresolved = "unresolved"
	// DenialIncomplete: the entity was resolved, but its activity could
	// not be enumerated completely for the harness (authz.ErrEnumeration).
	DenialIncomplete = "incomplete"
)

// ErrNoEntity is the resolution of an event whose entity nobody resolved
// (DecideWith given a nil resolution while a harness needs the entity).
var ErrNoEntity = errors.New("no entity was resolved for the event")

// EntityDenial is an entity-source harness whose trigger was not
// evaluated on an event's entity: no run for that harness from that
// event, as for a no match.
type EntityDenial struct {
	Harness string
	Reason  string // DenialUnresolved or DenialIncomplete
	Detail  string // why, for the log
}

// DecidesEntities reports whether some enabled harness declares system
// among its entity sources: only then is an entity of that system worth
// resolving.
func (e *Engine) DecidesEntities(system string) bool {
	return len(e.entityHarnesses(system)) > 0
}

// entityHarnesses are the enabled harnesses with system among their
// entity sources, in registration order.
func (e *Engine) entityHarnesses(system string) []*harness.Harness {
	return e.reg.EntityHarnesses(system)
}

// DecideWith is the one decision over an event and its entity: the
// event-only harnesses decide ev exactly as Decide does, and the
// entity-source harnesses whose sources include the event's system decide
// (res, ev) as DecideEntity does; the runs of both come back in
// registration order, each entity-source run carrying the entity its
// trigger saw (plan.Run.Entity). res is the event's entity (entity.RefOf)
// as resolved; nil when none was (then every such harness is denied). When
// no enabled harness declares the event's system, the decision is Decide's,
// unchanged. A denied entity-source harness starts no run and does not
// stop the others; with no run and no trigger error, the verdict is then
// denied. Pure, like Decide.
func (e *Engine) DecideWith(ev *event.Event, res *Resolution) Decision {
	d := e.Decide(ev)
	hs := e.entityHarnesses(ev.Source.System)
	if len(hs) == 0 || d.Verdict == VerdictKilled || d.Verdict == VerdictDenied {
		return d
	}
	ref := entity.RefOf(ev)
	r := Resolution{Err: ErrNoEntity}
	if res != nil {
		r = *res
	}
	if r.Err == nil && r.Entity != nil && r.Entity.Ref() != ref {
		r = Resolution{Err: fmt.Errorf("the resolved entity %s is not the event's %s", r.Entity.Ref(), ref)}
	}
	ed := e.DecideEntity(r, ev)
	if ed.Verdict == VerdictDenied && len(ed.Denied) == 0 { // the resolution failed: every harness
		for _, h := range hs {
			d.EntityDenied = append(d.EntityDenied, EntityDenial{Harness: h.Name, Reason: DenialUnresolved, Detail: ed.Reason})
		}
	}
	for _, h := range hs {
		if why, ok := ed.Denied[h.Name]; ok {
			d.EntityDenied = append(d.EntityDenied, EntityDenial{Harness: h.Name, Reason: DenialIncomplete, Detail: why})
		}
	}
	for _, h := range ed.Matched {
		run, oe := e.planRun(h, ev, ed.Seen[h.Name], nil)
		if oe != nil {
			d.OverlayErrors = append(d.OverlayErrors, *oe)
		}
		d.Runs = append(d.Runs, run)
	}
	d.Errors = append(d.Errors, ed.Errors...)
	e.order(&d)
	d.Verdict, d.Reason = mergedVerdict(d, e.policy.Decide(ev).Reason)
	return d
}

// order puts d's runs and errors (overlay errors too) in registration order.
func (e *Engine) order(d *Decision) {
	idx := map[string]int{}
	for i, h := range e.reg.All() {
		idx[h.Name] = i
	}
	slices.SortStableFunc(d.Runs, func(a, b plan.Run) int { return idx[a.Harness] - idx[b.Harness] })
	slices.SortStableFunc(d.Errors, func(a, b HarnessError) int { return idx[a.Harness] - idx[b.Harness] })
	slices.SortStableFunc(d.OverlayErrors, func(a, b HarnessError) int { return idx[a.Harness] - idx[b.Harness] })
}

// mergedVerdict sums up a decision over both kinds of harness; gate is the
// authorization gate's reason.
func mergedVerdict(d Decision, gate string) (string, string) {
	var denied string
	if len(d.EntityDenied) > 0 {
		names := make([]string, len(d.EntityDenied))
		for i, dn := range d.EntityDenied {
			names[i] = dn.Harness
		}
		denied = "; entity evaluation denied for " + strings.Join(names, ", ") + " (" + d.EntityDenied[0].Detail + ")"
	}
	switch {
	case len(d.Runs) > 0:
		names := make([]string, len(d.Runs))
		for i, r := range d.Runs {
			names[i] = r.Harness
		}
		return VerdictRun, gate + "; matched " + strings.Join(names, ", ") + denied
	case len(d.Errors) > 0:
		return VerdictError, gate + "; no trigger matched and " + errorNames(d.Errors) + " could not decide" + denied
	case denied != "":
		return VerdictDenied, gate + "; no trigger matched" + denied
	}
	return VerdictNoMatch, gate + "; no trigger matched"
}
