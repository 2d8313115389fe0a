package poll

import (
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// decider adapts the core engine to the poll cycle.
type decider struct{ e *core.Engine }

// CoreDecider is the core engine as the poll cycle uses it: one decision
// per change over its event and its item's entity (core.Engine.DecideWith),
// logged; the breaker's Admit and Refund.
func CoreDecider(e *core.Engine) Decider { return decider{e} }

// Decide merges the event-only and the entity-source harnesses' decisions
// into one (core.Engine.DecideWith).
func (d decider) Decide(ev *event.Event, res *entity.Resolution) Decision {
	dec := d.e.DecideWith(ev, res)
	d.e.LogDecision(dec)
	var errs []TriggerError
	for _, he := range dec.Errors {
		errs = append(errs, TriggerError{Harness: he.Harness, Err: he})
	}
	var denied []EntityDenial
	for _, dn := range dec.EntityDenied {
		denied = append(denied, EntityDenial{Harness: dn.Harness, Reason: dn.Reason, Detail: dn.Detail})
	}
	var overlays []string
	for _, oe := range dec.OverlayErrors {
		overlays = append(overlays, oe.Harness)
	}
	return Decision{Verdict: dec.Verdict, Reason: dec.Reason, Runs: dec.Runs, Errors: errs, EntityDenied: denied, OverlayErrors: overlays}
}

// DecidesEntities reports whether an enabled harness evaluates entities
// of system.
func (d decider) DecidesEntities(system string) bool { return d.e.DecidesEntities(system) }

func (d decider) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return d.e.Admit(runs) }

// Refund hands back the breaker slots of runs whose dispatch failed.
func (d decider) Refund(runs []plan.Run) { d.e.Refund(runs) }

// CoreScheduledDecider is the core engine as scheduled discovery uses it
// (Schedule.Decider).
func CoreScheduledDecider(e *core.Engine) ScheduledDecider { return decider{e} }

// DecideScheduled implements ScheduledDecider over the core engine
// (core.Engine.DecideEntity with no event): the platform policy, the
// activity filter per harness, then each trigger.
func (d decider) DecideScheduled(res entity.Resolution) ScheduledDecision {
	dec := d.e.DecideEntity(res, nil)
	out := ScheduledDecision{Verdict: dec.Verdict, Reason: dec.Reason}
	for _, h := range dec.Matched {
		// The overlays select the run's settings as for an event-backed
		// run, on the entity the trigger saw and no event; an evaluation
		// error leaves the harness's own.
		set, oerr := h.SettingsFor(h.Input(nil, dec.Seen[h.Name]))
		if oerr != nil {
			out.OverlayErrors = append(out.OverlayErrors, h.Name)
			d.e.Logger().Error("overlay could not be evaluated: the scheduled run has the harness's own settings", "harness", h.Name, "error", oerr.Error())
		}
		m := ScheduledMatch{Harness: h.Name, Role: set.Role, Workflow: set.Workflow, Revision: h.Revision, Seen: dec.Seen[h.Name]}
		if e := h.Entity; e != nil {
			m.MinRole, m.Every = string(e.MinRole), e.Every
			m.Retry = reconcile.Policy{Max: e.RetryMax, Backoff: e.RetryBackoff}
		}
		if m.Seen == nil {
			continue
		}
		out.Matched = append(out.Matched, m)
	}
	return out
}
