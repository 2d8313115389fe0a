package core

import (
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// planRun plans the run of harness h for ev with its overlays applied
// (harness.Harness.SettingsFor): en is the entity its trigger saw (nil for
// an event-only harness), in what the trigger evaluated (nil: built from
// ev and en). A harness without overlays gets RunFor's plan, untouched.
// An overlay that cannot be evaluated leaves the harness's own settings:
// it is logged at error level and returned, for Decision.OverlayErrors.
func (e *Engine) planRun(h *harness.Harness, ev *event.Event, en *entity.Entity, in *trigger.Input) (plan.Run, *HarnessError) {
	run := e.RunFor(h, ev)
	run.Entity = en
	if len(h.Overlays) == 0 {
		return run, nil
	}
	if in == nil {
		in = h.Input(ev, en)
	}
	s, err := h.SettingsFor(in)
	run.Role, run.Workflow = s.Role, s.Workflow
	if err != nil {
		e.log.Error("overlay could not be evaluated: the run has the harness's own settings",
			"harness", h.Name, "file", h.File, "error", err.Error())
		return run, &HarnessError{Harness: h.Name, File: h.File, Err: err}
	}
	if len(s.Applied) > 0 {
		e.log.Debug("overlays applied", "harness", h.Name, "overlays", s.Applied, "role", s.Role, "workflow", s.Workflow)
	}
	return run, nil
}
