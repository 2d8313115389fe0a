package harness

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// Overlay is one compiled entry of a harness's `overlays:` key: the
// settings that replace the harness's own on the runs its When selects.
// A zero setting leaves the harness's own.
type Overlay struct {
	// When is compiled like the harness's trigger: over `event` for an
	// event-only harness, over `entity` and a nullable `event` (with the
	// guard rule) for an entity-source one; under the same cost limit.
	When     *trigger.Trigger
	Role     string
	Workflow string
	Timeout  time.Duration
	Env      []string // nil: unchanged
	// Line and Col locate the `when` text in the harness file.
	Line, Col int
}

// Settings are the per-run settings of a harness that overlays can
// change: the harness's own, with every matching overlay applied.
type Settings struct {
	Role     string
	Workflow string // "" means the configuration's default
	Timeout  time.Duration
	Env      []string
	// Applied lists the indexes (in `overlays:`) of the overlays applied,
	// in order; nil when none.
	Applied []int
}

// OverlayError is an overlay whose `when` could not be evaluated: the run
// is planned with the harness's own settings, none of its overlays
// applied.
type OverlayError struct {
	Index     int // in `overlays:`
	Line, Col int // of its `when` in the harness file
	Err       error
}

func (e *OverlayError) Error() string {
	return fmt.Sprintf("overlays[%d].when (line %d, col %d): %v; the harness's own settings apply", e.Index, e.Line, e.Col, e.Err)
}

func (e *OverlayError) Unwrap() error { return e.Err }

// Base returns the harness's own settings, no overlay applied.
func (h *Harness) Base() Settings {
	return Settings{Role: h.Role, Workflow: h.Workflow, Timeout: h.Timeout, Env: h.Env}
}

// Input prepares what h's trigger and overlays evaluate: ev alone for an
// event-only harness, en (the entity its trigger saw) and ev (nil when no
// event prompted the evaluation) for an entity-source one.
func (h *Harness) Input(ev *event.Event, en *entity.Entity) *trigger.Input {
	if h.Entity != nil {
		return trigger.NewEntityInput(en, ev)
	}
	return trigger.NewInput(ev)
}

// SettingsFor applies to the harness's own settings every overlay whose
// When matches in (built by Input), in the order of `overlays:`: a later
// overlay wins over an earlier one for each setting it sets. A `when` that
// cannot be evaluated (its cost limit, an error of the expression on this
// input) makes the result the harness's own settings, returned with an
// *OverlayError for the caller to log and count: a run is never planned
// with part of its overlays.
func (h *Harness) SettingsFor(in *trigger.Input) (Settings, error) {
	s := h.Base()
	for i, o := range h.Overlays {
		ok, err := o.When.Eval(in)
		if err != nil {
			return h.Base(), &OverlayError{Index: i, Line: o.Line, Col: o.Col, Err: err}
		}
		if !ok {
			continue
		}
		s.Applied = append(s.Applied, i)
		if o.Role != "" {
			s.Role = o.Role
		}
		if o.Workflow != "" {
			s.Workflow = o.Workflow
		}
		if o.Timeout > 0 {
			s.Timeout = o.Timeout
		}
		if o.Env != nil {
			s.Env = slices.Clone(o.Env)
		}
	}
	return s, nil
}

// compileOverlays compiles the `when` of every overlay of ch with compile
// (the trigger's compiler) under lim; problems are positioned in the file.
func compileOverlays(ch *File, compile func(string, trigger.Limits) (*trigger.Trigger, error),
	lim trigger.Limits) ([]Overlay, strictyaml.Errors) {
	var out []Overlay
	var probs strictyaml.Errors
	for i := range ch.Overlays {
		co := &ch.Overlays[i]
		what := fmt.Sprintf("overlays[%d].when: ", i)
		t, err := compile(co.When, lim)
		var ce *trigger.CompileError
		switch {
		case errors.As(err, &ce):
			for _, p := range ce.All() {
				line, col := co.WhenPos(p.Line, p.Col)
				probs = append(probs, strictyaml.Problem{File: ch.File, Line: line, Col: col, Msg: what + p.Msg})
			}
		case err != nil:
			probs = append(probs, strictyaml.Problem{File: ch.File, Line: co.WhenLine, Col: co.WhenCol, Msg: what + err.Error()})
		default:
			out = append(out, Overlay{When: t, Role: co.Role, Workflow: co.Workflow, Timeout: co.Timeout, Env: co.Env,
				Line: co.WhenLine, Col: co.WhenCol})
		}
	}
	return out, probs
}
