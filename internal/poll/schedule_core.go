package poll

import (
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// DecideScheduled implements ScheduledDecider over the core engine
// (core.Engine.DecideEntity with no event): the platform policy, the
// activity filter per harness, then each trigger.
func (d decider) DecideScheduled(res entity.Resolution) ScheduledDecision {
	dec := d.e.DecideEntity(res, nil)
	out := ScheduledDecision{Verdict: dec.Verdict, Reason: dec.Reason}
	for _, h := range dec.Matched {
		// The overlays select the run's settings as for an event-backed
		// run, on the entity the trigger saw and no event; an evaluation
		// error leaves the harness's own.
		set, oerr := h.SettingsFor(h.Input(nil, dec.Seen[h.Name]))
		if oerr != nil {
			out.OverlayErrors = append(out.OverlayErrors, h.Name)
			d.e.Logger().Error("overlay could not be evaluated: the scheduled run has the harness's own settings", "harness", h.Name, "error", oerr.Error())
		}
		m := ScheduledMatch{Harness: h.Name, Role: set.Role, Workflow: set.Workflow, Revision: h.Revision, Seen: dec.Seen[h.Name]}
		if e := h.Entity; e != nil {
			m.MinRole, m.Every = string(e.MinRole), e.Every
			m.Retry = reconcile.Policy{Max: e.RetryMax, Backoff: e.RetryBackoff}
		}
		if m.Seen == nil {
			continue
		}
		out.Matched = append(out.Matched, m)
	}
	return out
}

// schedule is the scheduled discovery of one input's cycles: nil unless
// the policy allows it, an enabled harness declares the driver's entity
// system among its sources, and the driver resolves entities and keeps
// receipts (jira-poll, github-poll, gitlab-poll; without receipts retries could not
// be bounded).
func (c *Controller) schedule(eng decider, in Input) *Schedule {
	caps := in.PollDriver().Capabilities()
	er := caps.Entities
	if er == nil || caps.Scheduled == nil {
		return nil
	}
	if !c.cfg.Authorization.AllowsScheduled() || !eng.DecidesEntities(er.EntitySystem()) {
		return nil
	}
	if c.cadence == nil {
		c.cadence = &reconcile.Cadence{}
	}
	cadence, id := c.cadence, c.pollerID
	if k := caps.Cadence; k != nil {
		cadence = k.Cadence()
	}
	if p := caps.Identity; p != nil && p.PollerID() != "" {
		id = p.PollerID()
	}
	return &Schedule{Decider: eng, Policy: config.ScheduledAllow, Invoker: in.PollDriver().Name() + ":" + id,
		Forge: c.cfg.Forge, Cadence: cadence, Notify: c.o.OnQuarantine}
}

// CadenceKeeper is the capability of drivers that keep the cadence of their
// scheduled evaluations (entity.every) themselves, in their state, so
// that a one-shot process honours it; the others share the controller's
// (in memory).
type CadenceKeeper interface {
	Cadence() *reconcile.Cadence
}

// PollerIdentity is the capability of drivers that run under a poller id of
// their own (one restored from their state): the invoker of their
// scheduled runs (Schedule.Invoker) names it.
type PollerIdentity interface {
	PollerID() string
}
