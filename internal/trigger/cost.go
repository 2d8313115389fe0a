package trigger

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// unboundedText is the size assumed for a string of the event whose
// schema states no maxLength (head_sha, bounded by its pattern to 64).
const unboundedText = 256

// schemaSizes maps the path of every list and string of the event, as the
// cost estimator spells it ("event.state.labels", "event.state.labels.@items"),
// to the most elements or code points a valid event holds there: maxItems
// and maxLength in the embedded NormalizedEvent schema (internal/event),
// the longest value of an enum.
var schemaSizes = sync.OnceValues(func() (map[string]uint64, error) {
	var root map[string]any
	if err := json.Unmarshal(event.Schema(), &root); err != nil {
		return nil, fmt.Errorf("trigger: reading the event schema: %w", err)
	}
	defs, _ := root["$defs"].(map[string]any)
	out := map[string]uint64{}
	walkSchema(root, defs, "event", out, 0)
	return out, nil
})

// walkSchema records the sizes under schema node s at path p.
func walkSchema(s, defs map[string]any, p string, out map[string]uint64, depth int) {
	if depth > 16 { // the schema nests a few levels; this only stops a cycle
		return
	}
	if ref, ok := s["$ref"].(string); ok {
		if d, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any); ok {
			walkSchema(d, defs, p, out, depth+1)
		}
		return
	}
	if n, ok := s["maxItems"].(float64); ok {
		out[p] = uint64(n)
	}
	if n, ok := s["maxLength"].(float64); ok {
		out[p] = uint64(n)
	}
	if enum, ok := s["enum"].([]any); ok {
		var longest uint64
		for _, v := range enum {
			if str, ok := v.(string); ok {
				longest = max(longest, uint64(len([]rune(str))))
			}
		}
		out[p] = longest
	}
	if items, ok := s["items"].(map[string]any); ok {
		walkSchema(items, defs, p+".@items", out, depth+1)
	}
	props, _ := s["properties"].(map[string]any)
	for name, v := range props {
		if sub, ok := v.(map[string]any); ok {
			walkSchema(sub, defs, p+"."+name, out, depth+1)
		}
	}
}

// eventSizes supplies the schema's size bounds for values read from
// `event`, so that the estimate of expressions over them is finite and is
// the worst case over every valid event.
type eventSizes struct{ sizes map[string]uint64 }

func (e eventSizes) EstimateSize(n cost.AstNode) *cost.SizeEstimate {
	p := n.Path()
	if len(p) == 0 || p[0] != "event" {
		return nil
	}
	switch n.Type().Kind() {
	case types.ListKind, types.MapKind, types.StringKind, types.BytesKind:
	default:
		return nil
	}
	if m, ok := e.sizes[strings.Join(p, ".")]; ok {
		return &cost.SizeEstimate{Min: 0, Max: m}
	}
	return &cost.SizeEstimate{Min: 0, Max: unboundedText}
}

func (eventSizes) EstimateCallCost(string, string, *cost.AstNode, []cost.AstNode) *cost.CallEstimate {
	return nil
}

// checkCost returns the estimated worst-case cost of ast over every valid
// event, and an error when it exceeds limit (Limits.Cost). A trigger that
// passes can therefore never reach the runtime limit on a valid event:
// the decision is the same on every machine and at any load.
func checkCost(env *cel.Env, ast *cel.Ast, limit uint64) (uint64, *CompileError) {
	sizes, err := schemaSizes()
	if err != nil {
		return 0, &CompileError{Line: 1, Col: 1, Msg: err.Error()}
	}
	est, err := env.EstimateCost(ast, eventSizes{sizes: sizes})
	if err != nil {
		return 0, &CompileError{Line: 1, Col: 1, Msg: fmt.Sprintf("estimating the cost of the trigger: %v", err)}
	}
	if est.Max > limit {
		return est.Max, &CompileError{Line: 1, Col: 1, Msg: fmt.Sprintf(
			"trigger is too expensive: its worst-case cost is estimated at %d, over limits.trigger_cost (%d); "+
				"nested comprehensions over lists cost the product of their sizes (up to %d labels of %d characters)",
			est.Max, limit, sizes["event.state.labels"], sizes["event.state.labels.@items"])}
	}
	return est.Max, nil
}
