package trigger

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"

	"github.com/fullsend-dev/fullsend/internal/entity"
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
	docs, err := readSchemas()
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	docs.walk(docs[eventSchemaFile], eventSchemaFile, "event", out, 0)
	return out, nil
})

// entitySchemaSizes is schemaSizes for the two variables of an entity
// trigger: the event's paths and the entity's ("entity.activity",
// "entity.activity.@items.body"), from the embedded NormalizedEntity
// schema, whose references into the event schema are followed.
var entitySchemaSizes = sync.OnceValues(func() (map[string]uint64, error) {
	ev, err := schemaSizes()
	if err != nil {
		return nil, err
	}
	docs, err := readSchemas()
	if err != nil {
		return nil, err
	}
	out := maps.Clone(ev)
	docs.walk(docs[entitySchemaFile], entitySchemaFile, "entity", out, 0)
	return out, nil
})

// The schemas' file names, as the entity schema's references name them.
const (
	eventSchemaFile  = "normalized-event-v1.json"
	entitySchemaFile = "normalized-entity-v1.json"
)

// schemaDocs holds the decoded schemas by file name.
type schemaDocs map[string]map[string]any

func readSchemas() (schemaDocs, error) {
	docs := schemaDocs{}
	for name, data := range map[string][]byte{eventSchemaFile: event.Schema(), entitySchemaFile: entity.Schema()} {
		var root map[string]any
		if err := json.Unmarshal(data, &root); err != nil {
			return nil, fmt.Errorf("trigger: reading the schema %s: %w", name, err)
		}
		docs[name] = root
	}
	return docs, nil
}

// resolve follows a $ref ("#/$defs/x" or "file.json#/$defs/x/properties/y")
// from the document named in; it returns the target's document and node.
func (d schemaDocs) resolve(in, ref string) (string, map[string]any) {
	file, ptr, _ := strings.Cut(ref, "#")
	if file == "" {
		file = in
	}
	node := d[file]
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if seg == "" || node == nil {
			continue
		}
		node, _ = node[seg].(map[string]any)
	}
	return file, node
}

// walk records the sizes under schema node s (of document doc) at path p.
func (d schemaDocs) walk(s map[string]any, doc, p string, out map[string]uint64, depth int) {
	if depth > 16 || s == nil { // the schemas nest a few levels; this only stops a cycle
		return
	}
	if ref, ok := s["$ref"].(string); ok {
		file, target := d.resolve(doc, ref)
		d.walk(target, file, p, out, depth+1)
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
		d.walk(items, doc, p+".@items", out, depth+1)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			if sub, ok := a.(map[string]any); ok {
				d.walk(sub, doc, p, out, depth+1)
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	for name, v := range props {
		if sub, ok := v.(map[string]any); ok {
			d.walk(sub, doc, p+"."+name, out, depth+1)
		}
	}
}

// eventSizes supplies the schema's size bounds for values read from
// `event`, so that the estimate of expressions over them is finite and is
// the worst case over every valid event.
type eventSizes struct{ sizes map[string]uint64 }

func (e eventSizes) EstimateSize(n cost.AstNode) *cost.SizeEstimate {
	p := n.Path()
	if len(p) == 0 || p[0] != "event" && p[0] != "entity" {
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

// checkCostOver returns the estimated worst-case cost of ast over every
// valid input (its variables' schema sizes read from schemaSizes), and an
// error when it exceeds limit (Limits.Cost). A trigger that passes can
// therefore never reach the runtime limit on a valid input: the decision
// is the same on every machine and at any load.
func checkCostOver(env *cel.Env, ast *cel.Ast, limit uint64, schemaSizes func() (map[string]uint64, error)) (uint64, *CompileError) {
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
