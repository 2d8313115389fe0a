package runner

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/resolvers"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// steerCheck is what the start of a run of a harness that steers
// decided: Skip (its event was delivered into an earlier run: exit 0
// without the agent) and the run's own steering (nil: none).
type steerCheck struct {
	Skip bool
	Msg  string
	Spec *SteerSpec
}

// steerStart is the steering start-up of a run (docs/steering.md): on a
// forge, the consumed check of a run whose event is a comment, then the
// source of its own follow-ups, by the platform it runs on; on Jira,
// under the poll lock, the comments. A check that fails is
// logged and the run goes on without steering: running a follow-up once
// more is harmless, skipping the only run of one would not be.
func steerStart(ctx context.Context, r Request, cfg *config.Config, h *harness.Harness, ev *event.Event, spec *Spec) steerCheck {
	if !h.Steer.Enabled {
		return steerCheck{}
	}
	key := scope.KeyOf(h.Name, ev, cfg.Forge)
	env := steerEnv{r: r, cfg: cfg, h: h, ev: ev, key: string(key), spec: spec, log: r.Log}
	var sc steerCheck
	var err error
	switch scope.SubjectOf(ev, cfg.Forge).System {
	case event.SystemGitHub:
		sc, err = env.github(ctx)
	case event.SystemGitLab:
		sc, err = env.gitlab(ctx)
	case event.SystemJira:
		sc, err = env.jira(ctx)
	}
	if err != nil {
		r.Log.Warn("steer: the start-up check failed; the run goes on without steering", "harness", h.Name, "error", err.Error())
		return steerCheck{}
	}
	if sc.Spec != nil {
		sc.Spec.Settings = h.Steer
	}
	return sc
}

// steerEnv is what the platform set-ups share.
type steerEnv struct {
	r    Request
	cfg  *config.Config
	h    *harness.Harness
	ev   *event.Event
	key  string
	spec *Spec
	log  *slog.Logger
}

// commentID is the numeric id of the event's comment; 0 when the event
// is no comment.
func (e steerEnv) commentID() int64 {
	c := e.ev.Transition.Comment
	if e.ev.Transition.Kind != event.CommentAdded || c == nil {
		return 0
	}
	id, _ := strconv.ParseInt(c.ID, 10, 64)
	return id
}

// target is the event's item on its forge.
func (e steerEnv) target() (feedback.Target, error) {
	t, ok := feedback.TargetOf(e.ev)
	if !ok || t.Repo == "" || t.Number < 1 {
		return t, fmt.Errorf("the event names no %s item", e.ev.Source.System)
	}
	return t, nil
}

// decider is the core's decision for this harness on this scope, exactly
// as on the dispatch path: the event's validation, the gate (with own as
// the tool's account), the trigger and, for an entity-source harness,
// the entity resolved from the platform and filtered. A follow-up steers
// when it would start a run of this harness on this run's scope.
func (e steerEnv) decider(own ...string) (func(context.Context, *event.Event) (bool, error), error) {
	eng, err := core.New(core.Options{Config: e.cfg, Harnesses: harness.NewRegistry(e.h), Log: e.log, BotIDs: own})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ev *event.Event) (bool, error) {
		// As every input driver's event before the core sees it: one that
		// is not a valid NormalizedEvent starts nothing, so it steers
		// nothing either.
		if err := ev.Validate(); err != nil {
			e.log.Warn("steer: a comment's event is not a valid NormalizedEvent; it does not steer", "error", err.Error())
			return false, nil
		}
		var res *core.Resolution
		if e.h.Entity != nil && e.h.Entity.HasSource(ev.Source.System) {
			res = e.resolve(ctx, ev)
		}
		d := eng.DecideWith(ev, res)
		for _, run := range d.Runs {
			if run.Harness == e.h.Name && string(run.Key) == e.key {
				return true, nil
			}
		}
		return false, nil
	}, nil
}

// resolve resolves ev's entity from its platform (an entity-source
// harness's follow-up); a failure is the resolution's error, which the
// core turns into a denial.
func (e steerEnv) resolve(ctx context.Context, ev *event.Event) *core.Resolution {
	rv, err := resolvers.New(ev.Source.System, e.cfg, e.r.Getenv)
	if err != nil {
		return &core.Resolution{Err: err}
	}
	en, err := rv.Resolve(ctx, entity.RefOf(ev))
	return &core.Resolution{Entity: en, Err: err, Now: time.Now()}
}

// runName is this run as its records name it (steer.RunMarker): its
// platform's run, "driver/id" as its poll lock entry would be (CIRun).
func (e steerEnv) runName() string {
	ref := CIRun(e.r.Getenv, os.Getpid())
	return ref.Driver + "/" + ref.ID
}

// getenv is the trimmed variable.
func (e steerEnv) getenv(name string) string { return strings.TrimSpace(e.r.Getenv(name)) }
