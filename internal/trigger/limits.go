package trigger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cel.dev/cel-go/interpreter"
)

// Limits bound the work of one trigger evaluation. A zero field means its
// default. The configuration keys limits.trigger_cost and
// limits.trigger_timeout set them (docs/configuration.md).
type Limits struct {
	// Cost is the most CEL cost units one evaluation may spend. Compile
	// also rejects a trigger whose estimated worst case exceeds
	// CompileCostFactor times Cost.
	Cost uint64
	// Timeout is the wall-clock budget of one evaluation. cel-go checks it
	// between comprehension steps, the only place where an evaluation can
	// run long.
	Timeout time.Duration
}

// Defaults of Limits. One cost unit is roughly one operation, one
// comprehension step or a few characters compared. Measured on a 2-core
// machine at a load average of 25 a unit took 60-310 ns (an idle core
// is several times faster), so DefaultCost is tens of milliseconds of CPU
// when the machine is free; under such load the deadline stops an
// evaluation first. A typical trigger costs under 100 units
// and a comprehension over the most labels an event may carry (1000)
// costs about 6 000, so the default leaves more than 100 times headroom
// for real triggers while stopping a runaway one long before it hurts.
// DefaultTimeout is the backstop for what the cost model underrates.
const (
	DefaultCost    = 1_000_000
	DefaultTimeout = 100 * time.Millisecond
)

// CompileCostFactor relates the two cost limits: a trigger whose
// estimated worst case (under the event size assumptions of cost.go) is
// more than CompileCostFactor times Limits.Cost could never finish on a
// large event, and is rejected when it is compiled instead of failing at
// run time. With the default cost this is 100 000 000.
const CompileCostFactor = 100

// interruptCheckFrequency is how many comprehension steps run between two
// checks of the deadline: a hundred steps take well under a millisecond.
const interruptCheckFrequency = 100

// Names of the limits, as the configuration keys under `limits:` spell
// them; LimitError.Limit holds one of them.
const (
	LimitCost    = "trigger_cost"
	LimitTimeout = "trigger_timeout"
)

func (l Limits) withDefaults() Limits {
	if l.Cost == 0 {
		l.Cost = DefaultCost
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return l
}

// pessimisticUnit is a generous upper bound of the time one cost unit
// takes: about three times the slowest measured (310 ns, on a 2-core
// machine at a load average of 25).
const pessimisticUnit = time.Microsecond

// mayNear reports whether an evaluation whose estimated worst case is
// worst cost units could take half the deadline or more at
// pessimisticUnit per unit. Arming the deadline costs a context and a
// timer per evaluation (several times the price of a small evaluation),
// so a trigger that cannot come near it on a valid event runs without.
func (l Limits) mayNear(worst uint64) bool {
	return worst >= uint64(l.Timeout/(2*pessimisticUnit))
}

// compileCost is the largest estimated worst-case cost Compile accepts.
func (l Limits) compileCost() uint64 {
	if l.Cost > ^uint64(0)/CompileCostFactor {
		return ^uint64(0)
	}
	return l.Cost * CompileCostFactor
}

// LimitError says that an evaluation was stopped by one of its Limits.
// Callers count it as "no match", like any evaluation error.
type LimitError struct {
	Limit string // LimitCost or LimitTimeout
	Value string // the limit in force, e.g. "1000000" or "100ms"
}

func (e *LimitError) Error() string {
	what := "runtime cost limit"
	if e.Limit == LimitTimeout {
		what = "deadline"
	}
	return fmt.Sprintf("trigger: evaluation stopped: %s of %s exceeded (limits.%s)", what, e.Value, e.Limit)
}

// limitError translates an evaluation error: one caused by a limit
// becomes a *LimitError, one caused by ctx names the cause, and others get
// the package prefix. nil stays nil.
func (t *Trigger) limitError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var ce interpreter.EvalCancelledError
	if errors.As(err, &ce) && ce.Cause == interpreter.CostLimitExceeded {
		return &LimitError{Limit: LimitCost, Value: fmt.Sprint(t.lim.Cost)}
	}
	if !errors.Is(err, interpreter.InterruptError{}) {
		return fmt.Errorf("trigger: evaluation: %w", err)
	}
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return &LimitError{Limit: LimitTimeout, Value: t.lim.Timeout.String()}
	}
	return fmt.Errorf("trigger: evaluation cancelled: %w", context.Cause(ctx))
}
