package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/resolvers"
)

// resolve is the entity stage of `fullsend dispatch`: when an enabled
// harness declares the event's system among its entity sources, the
// event's entity (entity.RefOf: a comment on a pull or merge request is
// the change proposal's) is resolved once, for every such harness. nil
// when no harness needs it. A resolver that cannot be built, a failed
// read or an invalid entity is the resolution's error: evaluation of the
// entity is denied (the event-only harnesses decide as usual), logged
// with the reason.
func resolve(ctx context.Context, o Options, cfg *config.Config, eng *core.Engine, ev *event.Event, log *slog.Logger) *entity.Resolution {
	ref := entity.RefOf(ev)
	if !eng.DecidesEntities(ref.System) {
		return nil
	}
	newResolver := o.NewResolver
	if newResolver == nil {
		newResolver = resolvers.New
	}
	start := time.Now()
	res := &entity.Resolution{}
	r, err := newResolver(ref.System, cfg, o.Output.Getenv)
	if err == nil {
		res.Entity, err = r.Resolve(ctx, ref)
	}
	if err == nil && res.Entity == nil {
		err = fmt.Errorf("the resolver returned no entity for %s", ref)
	}
	if err == nil {
		if verr := res.Entity.Validate(); verr != nil {
			err = fmt.Errorf("the resolved entity %s is not a valid NormalizedEntity: %w", ref, verr)
		}
	}
	if err != nil {
		res.Entity, res.Err = nil, err
		log.Warn("entity not resolved: its entity-source harnesses are denied evaluation of the event", "entity", ref.String(), "reason", err.Error())
		return res
	}
	log.Info("entity resolved", "entity", ref.String(), "version", res.Entity.Version, "activity", len(res.Entity.Activity), "duration", time.Since(start))
	return res
}
