package harness

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
)

// MaxOverlays bounds a harness's `overlays:` list: every overlay's
// `when` is evaluated for every run the harness starts.
const MaxOverlays = 32

// FileOverlay is one entry of a harness's `overlays:` key: settings
// that replace the harness's own for the runs whose (entity, event) the
// `when` expression selects (docs/configuration.md, "Overlays"). A zero
// field leaves the setting as it is.
type FileOverlay struct {
	// When is the CEL condition, over the variables of the harness's
	// trigger; WhenLine and WhenCol locate its text in the file.
	When              string
	WhenLine, WhenCol int
	Role              string        // role: "" = unchanged
	Workflow          string        // dispatch.workflow: "" = unchanged
	Timeout           time.Duration // run.timeout: 0 = unchanged
	Env               []string      // run.env: nil = unchanged, else replaces the list
	// when remembers where and how When was written, for WhenPos.
	when triggerSource
}

// WhenPos maps a 1-based line:col inside the `when` expression (as
// reported by trigger.CompileError) to a 1-based line:col in the harness
// file, as TriggerPos does for the trigger.
func (o *FileOverlay) WhenPos(line, col int) (int, int) {
	return o.when.pos(line, col, o.WhenLine, o.WhenCol)
}

// notOverlaid explains, per harness key that an overlay cannot set, why.
var notOverlaid = map[string]string{
	"name":     "the harness's name is its identity",
	"trigger":  "the trigger decides whether the harness runs; overlays only shape the runs it starts",
	"entity":   "the entity sources decide which variables the expressions see",
	"report":   "feedback is written before and after any overlay is evaluated (a denied command never reaches CEL); report.jira already differs by system",
	"overlays": "overlays do not nest",
}

// notOverlaidRun is notOverlaid for the keys of `run:`.
var notOverlaidRun = map[string]string{
	"command":   "the program is the agent the harness registers; register another harness for another program",
	"user":      "the agent's identity must not depend on the content of the item",
	"isolation": "the agent's isolation must not depend on the content of the item",
}

// harnessOverlays decodes the `overlays:` key, a list of at most
// MaxOverlays mappings.
func harnessOverlays(d *strictyaml.Decoder, src []byte, n *yaml.Node) []FileOverlay {
	if n.Kind == yaml.SequenceNode && len(n.Content) > MaxOverlays {
		d.ErrAt(n, "overlays: at most %d overlays, got %d", MaxOverlays, len(n.Content))
		return nil
	}
	var out []FileOverlay
	d.Seq(n, "overlays", func(i int, e *yaml.Node) {
		if o, ok := harnessOverlay(d, src, fmt.Sprintf("overlays[%d]", i), e); ok {
			out = append(out, o)
		}
	})
	return out
}

// harnessOverlay decodes one overlay; ok is false when it has a problem.
func harnessOverlay(d *strictyaml.Decoder, src []byte, what string, n *yaml.Node) (FileOverlay, bool) {
	before := len(d.Problems)
	var o FileOverlay
	var when *yaml.Node
	sets := 0
	handlers := map[string]func(*yaml.Node){
		"when": func(v *yaml.Node) {
			if d.Scalar(v, what+".when", "a string holding a CEL expression", "!!str") {
				when = v
			}
		},
		"role": func(v *yaml.Node) {
			sets++
			d.Str(v, what+".role", &o.Role)
			if v.Kind == yaml.ScalarNode && strings.TrimSpace(o.Role) == "" {
				d.ErrAt(v, "%s.role: must not be empty", what)
			}
		},
		"dispatch": func(v *yaml.Node) { sets += overlayDispatch(d, what, v, &o) },
		"run":      func(v *yaml.Node) { sets += overlayRun(d, what, v, &o) },
	}
	d.Fields(refuse(d, n, what, notOverlaid), what, handlers)
	if n.Kind != yaml.MappingNode {
		if strictyaml.IsNull(n) {
			d.ErrAt(n, "%s: want a mapping with when and the settings it selects, got null", what)
		}
		return o, false
	}
	switch {
	case when == nil:
		d.ErrAt(n, "%s.when: required (a CEL condition selecting the runs this overlay applies to)", what)
	case strings.TrimSpace(when.Value) == "":
		d.ErrAt(when, "%s.when: must not be empty", what)
	default:
		o.When = when.Value
		o.when, o.WhenLine, o.WhenCol = exprSource(src, when)
	}
	if sets == 0 {
		d.ErrAt(n, "%s: sets nothing (give at least one of role, dispatch.workflow, run.timeout, run.env)", what)
	}
	return o, len(d.Problems) == before
}

// overlayDispatch decodes an overlay's `dispatch:`; it returns how many
// settings it sets.
func overlayDispatch(d *strictyaml.Decoder, what string, n *yaml.Node, o *FileOverlay) int {
	sets := 0
	d.Fields(n, what+".dispatch", map[string]func(*yaml.Node){
		"workflow": func(v *yaml.Node) {
			sets++
			var s string
			d.Str(v, what+".dispatch.workflow", &s)
			if err := config.CheckWorkflow(s); err != nil && v.Kind == yaml.ScalarNode {
				d.ErrAt(v, "%s.dispatch.workflow: %v", what, err)
				return
			}
			o.Workflow = s
		},
	})
	return sets
}

// overlayRun decodes an overlay's `run:`; it returns how many settings it
// sets.
func overlayRun(d *strictyaml.Decoder, what string, n *yaml.Node, o *FileOverlay) int {
	sets := 0
	handlers := map[string]func(*yaml.Node){
		"timeout": func(v *yaml.Node) { sets++; d.Duration(v, what+".run.timeout", &o.Timeout) },
		"env":     func(v *yaml.Node) { sets++; d.StrList(v, what+".run.env", &o.Env, config.CheckEnvName) },
	}
	d.Fields(refuse(d, n, what+".run", notOverlaidRun), what+".run", handlers)
	return sets
}

// refuse reports each key of mapping n that is a key of why (a harness
// key an overlay cannot set) with the reason, and returns n without them,
// for fields to decode the rest.
func refuse(d *strictyaml.Decoder, n *yaml.Node, what string, why map[string]string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return n
	}
	kept := *n
	kept.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if reason, ok := why[k.Value]; ok && k.Kind == yaml.ScalarNode {
			d.ErrAt(k, "%s: %s cannot be set by an overlay: %s", what, k.Value, reason)
			continue
		}
		kept.Content = append(kept.Content, k, n.Content[i+1])
	}
	return &kept
}
