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
		m := ScheduledMatch{Harness: h.Name, Role: h.Role, Workflow: h.Workflow, Revision: h.Revision, Seen: dec.Seen[h.Name]}
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
// receipts (jira-poll, github-poll; without receipts retries could not
// be bounded).
func (c *Controller) schedule(eng decider, in Input) *Schedule {
	er, ok := in.PollDriver().(EntityResolver)
	if _, keeps := in.PollDriver().(ReceiptKeeper); !ok || !keeps {
		return nil
	}
	if !c.cfg.Authorization.AllowsScheduled() || !eng.DecidesEntities(er.EntitySystem()) {
		return nil
	}
	if c.cadence == nil {
		c.cadence = &reconcile.Cadence{}
	}
	return &Schedule{Decider: eng, Policy: config.ScheduledAllow, Invoker: in.PollDriver().Name() + ":" + c.pollerID,
		Forge: c.cfg.Forge, Cadence: c.cadence, Notify: c.o.OnQuarantine}
}
