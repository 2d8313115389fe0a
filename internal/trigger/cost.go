package trigger

import (
	"fmt"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
)

// Size assumptions for the static cost estimate: labels per item (the
// most a valid event carries: state.labels has at most 1000 entries, and a
// Jira issue has no smaller limit) and code points per string field of an event
// (comment bodies and instructions are capped at 4096 code points, URLs at
// 2048; ids, names and refs are short).
const (
	assumedMaxListLen   = 1000
	assumedMaxLongText  = 4096
	assumedMaxURL       = 2048
	assumedMaxShortText = 256
)

// eventSizes supplies size hints for values read from `event`, so the
// estimate of expressions over them is finite.
type eventSizes struct{}

func (eventSizes) EstimateSize(n cost.AstNode) *cost.SizeEstimate {
	p := n.Path()
	if len(p) == 0 || p[0] != "event" {
		return nil
	}
	switch n.Type().Kind() {
	case types.ListKind, types.MapKind:
		return &cost.SizeEstimate{Min: 0, Max: assumedMaxListLen}
	case types.StringKind, types.BytesKind:
		switch p[len(p)-1] {
		case "body", "instruction":
			return &cost.SizeEstimate{Min: 0, Max: assumedMaxLongText}
		case "url":
			return &cost.SizeEstimate{Min: 0, Max: assumedMaxURL}
		}
		return &cost.SizeEstimate{Min: 0, Max: assumedMaxShortText}
	}
	return nil
}

func (eventSizes) EstimateCallCost(string, string, *cost.AstNode, []cost.AstNode) *cost.CallEstimate {
	return nil
}

// checkCost returns the estimated worst-case cost of ast, and an error
// when it exceeds max (CompileCostFactor times the runtime cost limit).
// The estimate is made once at compile time: it rejects runaway
// expressions such as comprehensions nested three deep, or two deep with
// costly string operations, over the labels; membership tests, single
// comprehensions and cheap double comprehensions stay below it, and the
// runtime limit stops those on events large enough to matter.
func checkCost(env *cel.Env, ast *cel.Ast, max uint64) (uint64, *CompileError) {
	est, err := env.EstimateCost(ast, eventSizes{})
	if err != nil {
		return 0, &CompileError{Line: 1, Col: 1, Msg: fmt.Sprintf("estimating the cost of the trigger: %v", err)}
	}
	if est.Max > max {
		return est.Max, &CompileError{Line: 1, Col: 1, Msg: fmt.Sprintf(
			"trigger is too expensive: its worst-case cost is estimated at %d, over the limit of %d "+
				"(%d times limits.trigger_cost); nested comprehensions over lists cost the product of their sizes",
			est.Max, max, CompileCostFactor)}
	}
	return est.Max, nil
}
