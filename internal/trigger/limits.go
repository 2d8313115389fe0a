package trigger

import (
	"errors"
	"fmt"

	"cel.dev/cel-go/interpreter"
)

// Limits bound the work of one trigger evaluation. A zero field means its
// default. The configuration key limits.trigger_cost sets Cost
// (docs/configuration.md).
type Limits struct {
	// Cost is the most CEL cost units one evaluation may spend. Compile
	// rejects a trigger whose estimated worst case over every valid event
	// exceeds it, so a trigger that compiles can reach it only on an event
	// larger than the schema allows; there it is an error, never "false".
	Cost uint64
}

// DefaultCost is the default of Limits.Cost. One cost unit is roughly one
// operation, one comprehension step or a few characters compared; a unit
// took 60-310 ns on a 2-core machine at a load average of 25, so the
// default is at most a third of a second of CPU there. A typical trigger
// costs under 100 units and a comprehension over the most labels an event
// may carry (1000) about 6 000, so the default leaves more than 100 times
// headroom for real triggers.
//
// There is no wall-clock limit: the work of an evaluation is bounded by
// its cost alone, which is the same on every machine, so a decision never
// depends on how loaded the machine is.
const DefaultCost = 1_000_000

// LimitCost names the limit as the configuration key under `limits:`
// spells it; LimitError.Limit holds it.
const LimitCost = "trigger_cost"

func (l Limits) withDefaults() Limits {
	if l.Cost == 0 {
		l.Cost = DefaultCost
	}
	return l
}

// LimitError says that an evaluation was stopped by its cost limit. It is
// an error, not a "false": callers must not count it as no match
// (core.Decision.Errors).
type LimitError struct {
	Limit string // LimitCost
	Value string // the limit in force, e.g. "1000000"
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("trigger: evaluation stopped: runtime cost limit of %s exceeded (limits.%s)", e.Value, e.Limit)
}

// limitError translates an evaluation error: one caused by the cost limit
// becomes a *LimitError, others get the package prefix. nil stays nil.
func (t *Trigger) limitError(err error) error {
	if err == nil {
		return nil
	}
	var ce interpreter.EvalCancelledError
	if errors.As(err, &ce) && ce.Cause == interpreter.CostLimitExceeded {
		return &LimitError{Limit: LimitCost, Value: fmt.Sprint(t.lim.Cost)}
	}
	return fmt.Errorf("trigger: evaluation: %w", err)
}
