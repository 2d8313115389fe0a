package core

import (
	"slices"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// Resolution is the outcome of resolving an entity (entity.Resolution).
type Resolution = entity.Resolution

// EntityDecision is the outcome of deciding one entity (and the event
// that prompted it, if any) for the entity-source harnesses.
type EntityDecision struct {
	Verdict string // VerdictRun, VerdictKilled, VerdictDenied, VerdictNoMatch, VerdictError
	Reason  string
	// Matched lists the harnesses whose trigger matched, in registration
	// order.
	Matched []*harness.Harness
	// Seen gives, per matched harness name, the entity its trigger saw:
	// the activity filtered for its min_role. The run carries that copy.
	Seen map[string]*entity.Entity
	// Denied gives, per harness name, why its trigger was not evaluated:
	// the entity's activity could not be enumerated for it.
	Denied map[string]string
	// Dropped counts, per harness name, the activity elements removed
	// before its trigger ran (actors below its min_role, bots, the tool's
	// own accounts).
	Dropped map[string]int
	Errors  []HarnessError // as Decision.Errors
}

// DecideEntity decides res (and ev, nil during scheduled discovery) for
// every enabled entity-source harness whose sources include the entity's
// system. Authorization comes first: an event-backed decision is gated
// on the event's actor exactly as Decide gates it, a scheduled one (ev
// nil) on the platform policy (authorization.scheduled_discovery: only
// allow lets it through); then, per harness, the entity's activity is
// filtered to the elements of actors at or above the harness's min_role
// (authz.Policy.FilterActivity) and only that copy, with the harness's
// own receipt (res.Receipts; without that map, the entity's own), is
// shown to the trigger. A failed
// resolution denies evaluation for every harness; an incomplete enumeration denies it for the harness. Pure: no
// I/O, nothing recorded; ev, if given, must be validated.
func (e *Engine) DecideEntity(res Resolution, ev *event.Event) EntityDecision {
	d := EntityDecision{Denied: map[string]string{}, Dropped: map[string]int{}, Seen: map[string]*entity.Entity{}}
	if e.cfg.KillSwitch {
		d.Verdict, d.Reason = VerdictKilled, "kill_switch is on: no runs"
		return d
	}
	if ev != nil {
		if gate := e.policy.Decide(ev); !gate.Allowed {
			d.Verdict, d.Reason = VerdictDenied, gate.Reason
			return d
		}
	} else if !e.cfg.Authorization.AllowsScheduled() {
		d.Verdict, d.Reason = VerdictDenied, "scheduled discovery is denied: authorization.scheduled_discovery is not allow"
		return d
	}
	if res.Err != nil || res.Entity == nil {
		why := "no entity"
		if res.Err != nil {
			why = res.Err.Error()
		}
		d.Verdict, d.Reason = VerdictDenied, "entity could not be resolved: "+why
		e.log.Warn("entity evaluation denied: the entity could not be resolved", "reason", why)
		return d
	}
	en := res.Entity
	for _, h := range e.reg.All() {
		if h.Entity == nil || !slices.Contains(h.Entity.Sources, en.Source.System) {
			continue
		}
		kept, dropped, err := e.policy.FilterActivity(en, h.Entity.MinRole)
		if err != nil {
			d.Denied[h.Name] = err.Error()
			e.log.Warn("entity evaluation denied for the harness", "harness", h.Name, "entity", en.Ref().String(), "reason", err.Error())
			continue
		}
		d.Dropped[h.Name] = dropped
		if res.Receipts != nil {
			kept.Receipt = res.Receipts[h.Name]
		}
		ok, err := h.Matches(trigger.NewEntityInputAt(kept, ev, res.Now))
		switch {
		case err != nil:
			if e.logEvalError(h, err) {
				d.Errors = append(d.Errors, HarnessError{Harness: h.Name, File: h.File, Err: err})
			}
		case ok:
			d.Matched = append(d.Matched, h)
			d.Seen[h.Name] = kept
		}
	}
	d.Verdict, d.Reason = entityVerdict(d)
	return d
}

// entityVerdict sums up the per-harness outcomes.
func entityVerdict(d EntityDecision) (string, string) {
	switch {
	case len(d.Matched) > 0:
		names := make([]string, len(d.Matched))
		for i, h := range d.Matched {
			names[i] = h.Name
		}
		return VerdictRun, "matched " + strings.Join(names, ", ")
	case len(d.Errors) > 0:
		return VerdictError, "no trigger matched and " + errorNames(d.Errors) + " could not decide"
	case len(d.Denied) > 0:
		return VerdictDenied, "no trigger matched; " + english.Count(len(d.Denied), "harness") + " denied evaluation (incomplete enumeration)"
	}
	return VerdictNoMatch, "no trigger matched"
}
