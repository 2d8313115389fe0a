// Package core is the decision spine shared by every entry point: one
// NormalizedEvent in, the runs it starts out (ARCHITECTURE.md):
//
//	event → kill switch → authorization gate → harness triggers → runs (each with its scope key)
//
// Decide is pure with respect to the outside world: it performs no I/O and
// records nothing, so a poller may decide many events and keep only the
// newest run per harness (coalescing) before calling Admit, which applies
// the per-scope hourly circuit breaker to the runs really dispatched.
//
// Decide decides the event-only harnesses; DecideEntity decides (entity,
// event) for the entity-source ones: the event's gate (with no event, the
// scheduled-discovery policy), the activity filter per harness, then the
// trigger; DecideWith (decidewith.go) merges both into the one decision
// every entry point uses, with the entity denials (EntityDenial) and
// DecidesEntities (whether a system's entities are worth resolving).
package core

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/authz"
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// Verdicts of a Decision.
const (
	VerdictRun     = "run"      // one or more harnesses matched
	VerdictKilled  = "killed"   // kill_switch is on
	VerdictDenied  = "denied"   // the authorization gate refused the actor
	VerdictNoMatch = "no_match" // authorized, but no trigger matched
	VerdictError   = "error"    // no trigger matched and some could not be evaluated (Decision.Errors)
)

// Options configure an Engine.
type Options struct {
	Config    *config.Config
	Harnesses *harness.Registry
	Log       *slog.Logger
	// Breaker limits runs per scope per hour in Admit; nil disables it
	// (one-shot paths, where an in-memory count would mean nothing).
	Breaker *Breaker
	// BotIDs are the tool's own account ids, added to the configured
	// authorization.bot_accounts for the loop guard.
	BotIDs []string
}

// Engine decides which runs an event starts. Safe for concurrent use.
type Engine struct {
	cfg     *config.Config
	reg     *harness.Registry
	log     *slog.Logger
	breaker *Breaker
	policy  authz.Policy
}

// Decision is the outcome of one event.
type Decision struct {
	Event   *event.Event
	Verdict string
	Reason  string
	Runs    []plan.Run // one per matching harness, in registration order
	// Errors lists the harnesses whose trigger could not decide: the cost
	// limit stopped it (trigger.LimitError). Such a harness neither ran
	// nor was found not to match; callers retry it and report it, never
	// count it as no match. The other harnesses decided as usual.
	Errors []HarnessError
	// EntityDenied lists the entity-source harnesses denied evaluation of
	// the event's entity (DecideWith only): no run for them, logged and
	// counted by the caller.
	EntityDenied []EntityDenial
	// OverlayErrors lists the harnesses of Runs an overlay's `when` could
	// not be evaluated for: their run has the harness's own settings
	// (harness.OverlayError). Logged at error level; callers count them.
	OverlayErrors []HarnessError
}

// HarnessError is a harness whose trigger could not decide an event.
type HarnessError struct {
	Harness string
	File    string
	Err     error
}

func (e HarnessError) Error() string {
	return fmt.Sprintf("harness %s (%s): %v", e.Harness, e.File, e.Err)
}

// New builds an engine. It fails only on an invalid policy (unknown
// min_role), which config validation normally catches first.
func New(o Options) (*Engine, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Config == nil {
		o.Config = &config.Config{}
	}
	if o.Harnesses == nil {
		o.Harnesses = &harness.Registry{}
	}
	ids := append(append([]string{}, o.Config.Authorization.BotAccounts...), o.BotIDs...)
	p, err := authz.NewPolicy(o.Config.Authorization.MinRole, ids...)
	if err != nil {
		return nil, fmt.Errorf("authorization: %w", err)
	}
	return &Engine{cfg: o.Config, reg: o.Harnesses, log: o.Log, breaker: o.Breaker, policy: p}, nil
}

// Halted reports whether the kill switch stops every run, and says so:
// a poller then skips its cycle rather than lock and checkpoint items
// whose events would all be refused.
func (e *Engine) Halted() (bool, string) {
	if e.cfg.KillSwitch {
		return true, "kill_switch is on"
	}
	return false, ""
}

// Decide runs ev through the kill switch, the gate and every enabled
// harness trigger. A trigger stopped by its cost limit is listed in
// Errors and logged at error level; any other evaluation error (an index
// out of range on this event) counts as no match and is logged at warn
// level. ev must already be validated.
func (e *Engine) Decide(ev *event.Event) Decision {
	d := Decision{Event: ev}
	if e.cfg.KillSwitch {
		d.Verdict, d.Reason = VerdictKilled, "kill_switch is on: no runs"
		return d
	}
	gate := e.policy.Decide(ev)
	if !gate.Allowed {
		d.Verdict, d.Reason = VerdictDenied, gate.Reason
		return d
	}
	in := trigger.NewInput(ev)
	var matched []string
	for _, h := range e.reg.All() {
		if h.Entity != nil {
			// An entity-source harness decides over (entity, event):
			// DecideWith, given the event's resolved entity.
			continue
		}
		ok, err := h.Matches(in) // manual-only harnesses never match
		if err != nil {
			if e.logEvalError(h, err) {
				d.Errors = append(d.Errors, HarnessError{Harness: h.Name, File: h.File, Err: err})
			}
			continue
		}
		if ok {
			run, oe := e.planRun(h, ev, nil, in)
			if oe != nil {
				d.OverlayErrors = append(d.OverlayErrors, *oe)
			}
			d.Runs = append(d.Runs, run)
			matched = append(matched, h.Name)
		}
	}
	if len(d.Runs) == 0 && len(d.Errors) > 0 {
		d.Verdict, d.Reason = VerdictError, gate.Reason+"; no trigger matched and "+errorNames(d.Errors)+" could not decide"
		return d
	}
	if len(d.Runs) == 0 {
		d.Verdict, d.Reason = VerdictNoMatch, gate.Reason+"; no trigger matched"
		return d
	}
	d.Verdict, d.Reason = VerdictRun, gate.Reason+"; matched "+strings.Join(matched, ", ")
	return d
}

// logEvalError logs a trigger that failed to evaluate and reports whether
// the failure is an error of the harness (its cost limit stopped it)
// rather than no match.
func (e *Engine) logEvalError(h *harness.Harness, err error) bool {
	var le *trigger.LimitError
	if errors.As(err, &le) {
		e.log.Error("trigger stopped by its cost limit: the harness could not decide; not counted as no match",
			"harness", h.Name, "file", h.File, "limit", "limits."+le.Limit, "value", le.Value)
		return true
	}
	e.log.Warn("trigger evaluation failed; counted as no match",
		"harness", h.Name, "file", h.File, "error", err.Error())
	return false
}

// errorNames lists the harnesses of errs.
func errorNames(errs []HarnessError) string {
	names := make([]string, len(errs))
	for i, he := range errs {
		names[i] = he.Harness
	}
	return strings.Join(names, ", ")
}

// RunFor plans a run of harness h for ev, with its scope key and work
// item, and the harness's own settings (no overlay applied: the decisions
// apply them, planRun).
func (e *Engine) RunFor(h *harness.Harness, ev *event.Event) plan.Run {
	return plan.Run{
		Harness:  h.Name,
		Role:     h.Role,
		Workflow: h.Workflow,
		Event:    ev,
		Key:      scope.KeyOf(h.Name, ev, e.cfg.Forge),
		WorkItem: plan.WorkItemOf(ev),
	}
}

// Admit applies the per-scope hourly circuit breaker to runs about to be
// dispatched: each admitted run takes a slot, which Refund returns if its
// dispatch fails. Skipped runs are logged and must be counted by the
// caller; a poller defers them (its checkpoint holds them until the
// window allows), it never drops them.
func (e *Engine) Admit(runs []plan.Run) (admitted, skipped []plan.Run) {
	for _, r := range runs {
		if e.breaker.Allow(r.Key) {
			admitted = append(admitted, r)
			continue
		}
		e.log.Warn("run held back by circuit breaker: scope reached runs_per_scope_per_hour",
			"harness", r.Harness, "serialization_key", string(r.Key), "limit", e.breaker.limit)
		skipped = append(skipped, r)
	}
	return admitted, skipped
}

// Refund returns the breaker slots of admitted runs that did not start
// (their dispatch failed): only started runs count against the limit.
func (e *Engine) Refund(runs []plan.Run) {
	for _, r := range runs {
		e.breaker.Refund(r.Key)
	}
}

// Logger is the engine's logger, for the decisions its callers complete
// (the scheduled runs' overlays).
func (e *Engine) Logger() *slog.Logger { return e.log }

// LogDecision writes one structured record for d.
func (e *Engine) LogDecision(d Decision) {
	args := []any{"verdict", d.Verdict, "reason", d.Reason,
		"repo", d.Event.Repo, "entity", d.Event.Entity.ID, "transition", d.Event.Transition.Kind,
		"actor", d.Event.Actor.ID, "runs", len(d.Runs), "errors", len(d.Errors)}
	if len(d.EntityDenied) > 0 {
		args = append(args, "entity_denied", len(d.EntityDenied))
	}
	if len(d.OverlayErrors) > 0 {
		args = append(args, "overlay_errors", len(d.OverlayErrors))
	}
	e.log.Info("decision", args...)
}
