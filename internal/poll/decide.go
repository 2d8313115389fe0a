package poll

import (
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Verdicts of a Decision (the same words as package core).
const (
	VerdictRun     = "run"
	VerdictKilled  = "killed"
	VerdictDenied  = "denied"
	VerdictNoMatch = "no_match"
	VerdictError   = "error" // no trigger matched and some could not decide (Decision.Errors)
)

// Decision is the core's answer for one event: a verdict, why, and one run
// per matching harness (Key and WorkItem set, PollLock nil).
type Decision struct {
	Verdict string
	Reason  string
	Runs    []plan.Run
	// Errors are the harnesses whose trigger could not decide the event
	// (stopped by its cost limit): neither a match nor no match. The cycle
	// retries them and quarantines the change after MaxDispatchAttempts
	// cycles (pollcycle/undecided.go).
	Errors []TriggerError
	// EntityDenied lists the entity-source harnesses denied evaluation of
	// the change's entity (it could not be resolved, or its activity not
	// completely enumerated): no run for them from this change, as for a
	// no match; the checkpoint moves past it (docs/entities.md).
	EntityDenied []EntityDenial
	// OverlayErrors names the harnesses of Runs whose overlays could not
	// be evaluated: their run has the harness's own settings (counted in
	// CycleStats.OverlayErrors).
	OverlayErrors []string
}

// EntityDenial is an entity-source harness denied evaluation of an
// entity: Reason is a short word for metrics ("unresolved",
// "incomplete"), Detail why.
type EntityDenial struct {
	Harness, Reason, Detail string
}

// TriggerError is a harness whose trigger could not decide an event.
type TriggerError struct {
	Harness string
	Err     error
}

// Decider is the core as the cycle uses it (CoreDecider adapts
// *core.Engine). Decide decides one change's event with its item's entity
// (res: Item.Entity, nil when none was resolved) for every harness: the
// event-only ones on the event alone, the entity-source ones on (entity,
// event). It must be free of side effects; Admit applies the per-scope
// circuit breaker to the runs that will really be dispatched, Refund
// hands back what the failed ones took, and DecidesEntities says whether
// the entity stage runs.
type Decider interface {
	Decide(ev *event.Event, res *entity.Resolution) Decision
	Admit(runs []plan.Run) (admitted, skipped []plan.Run)
	Refunder
	EntityDecider
}

// EntityDecider is the Decider's entity half: DecidesEntities reports whether some enabled harness declares system
// among its entity sources. The cycle resolves entities (EntityResolver)
// only for a Decider that says so for the driver's system.
type EntityDecider interface {
	DecidesEntities(system string) bool
}

// Refunder is the Decider's budget half: its Admit may take a slot of a
// budget (the per-scope circuit breaker) for each admitted run, and the
// cycle hands back the runs whose dispatch failed: only runs that started
// count against the budget, so a failing output never uses it up. A
// Decider without a budget refunds nothing.
type Refunder interface {
	Refund(runs []plan.Run)
}
