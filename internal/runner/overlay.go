package runner

import (
	"log/slog"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
)

// runSettings are the settings of h's run on ev and en (the event and
// entity the run was handed): the harness's own with its overlays applied,
// evaluated here as the dispatcher evaluated them to plan the run (the
// role and workflow it chose; run.timeout and run.env are applied here).
// An overlay that cannot be evaluated, or an entity-source harness's run
// handed no entity, gets the harness's own settings, logged.
func runSettings(h *harness.Harness, ev *event.Event, en *entity.Entity, log *slog.Logger) harness.Settings {
	if len(h.Overlays) == 0 {
		return h.Base()
	}
	if h.Entity != nil && en == nil {
		log.Warn("no entity was given to the run: its overlays are not evaluated; the harness's own settings apply",
			"harness", h.Name, "file", h.File)
		return h.Base()
	}
	s, err := h.SettingsFor(h.Input(ev, en))
	if err != nil {
		log.Error("overlay could not be evaluated: the run has the harness's own settings",
			"harness", h.Name, "file", h.File, "error", err.Error())
		return s
	}
	if len(s.Applied) > 0 {
		log.Info("overlays applied", "harness", h.Name, "overlays", s.Applied, "timeout", s.Timeout, "env", s.Env)
	}
	return s
}
