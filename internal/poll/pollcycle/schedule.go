package pollcycle

import (
	"log/slog"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// scheduled is the scheduled part of one item's plan.
type scheduled struct {
	runs map[string]polllock.EntityRun // by harness: scheduled runs dispatched this cycle
	// event is, by harness, the entity versions of the event-backed runs
	// of entity-source harnesses: their lock entries and tries too.
	event   map[string]polllock.EntityRun
	giveUps []poll.EntityQuarantine // versions to quarantine
}

// all is every entity run of the plan, scheduled or event-backed.
func (s scheduled) all() map[string]polllock.EntityRun {
	if len(s.runs)+len(s.event) == 0 {
		return nil
	}
	out := make(map[string]polllock.EntityRun, len(s.runs)+len(s.event))
	for h, er := range s.event {
		out[h] = er
	}
	for h, er := range s.runs {
		out[h] = er
	}
	return out
}

// noteEventRuns records the entity version of p's event-backed runs of
// entity-source harnesses (Run.Entity): the lock names it, so that a
// successful run writes its receipt and a later scheduled pass does not
// redo it, and the run counts as a try of that version. With final, only
// the entries the lock was written with are kept.
func noteEventRuns(p *itemPlan, final bool, planned map[string]polllock.EntityRun) {
	for _, r := range p.runs {
		if r.Entity == nil || r.Entity.Version == "" {
			continue
		}
		er := polllock.EntityRun{Version: r.Entity.Version, Attempt: 1}
		if t := p.it.Receipts[r.Harness].Tries; t != nil && t.Version == er.Version {
			er.Attempt = t.Count + 1
		}
		if final {
			pl, ok := planned[r.Harness]
			if !ok || pl.Version != er.Version {
				continue
			}
			er = pl
		}
		if p.sched.event == nil {
			p.sched.event = map[string]polllock.EntityRun{}
		}
		p.sched.event[r.Harness] = er
	}
}

// scheduleItem evaluates it's resolved entity with no event and adds to
// p a run for every harness the reconcile rule finds due and p does not
// already run, and the versions to give up on. With final, planned is
// the lock's entries as Acquire wrote them (Item.EntityRuns): a harness
// whose due version or attempt is not among them is left for the next
// cycle (the lock would name another version than its run's). Counters
// go to st.
func (c *cycle) scheduleItem(p *itemPlan, final bool, planned map[string]polllock.EntityRun, log *slog.Logger, st *poll.CycleStats) {
	s := c.o.Schedule
	it := p.it
	if !p.killed {
		noteEventRuns(p, final, planned)
	}
	if s == nil || p.killed || it.Entity == nil || it.Entity.Entity == nil || it.Entity.Err != nil || !s.Allows() {
		return
	}
	en := it.Entity.Entity
	res := entity.Resolution{Entity: en, Receipts: map[string]*entity.Receipt{}, Now: c.o.Now()}
	for h, rec := range it.Receipts {
		res.Receipts[h] = reconcile.Exposed(rec)
	}
	dec := s.Decider.DecideScheduled(res)
	st.ScheduledEvaluated++
	st.NoteOverlayErrors(dec.OverlayErrors)
	for _, m := range dec.Matched {
		if p.runs != nil && p.has(m.Harness) {
			continue // the event-backed run reconciles the entity too
		}
		ck := reconcile.CadenceKey(m.Harness, it.ID)
		if s.Cadence != nil && !s.Cadence.Due(ck, m.Every, c.o.Now()) {
			continue
		}
		if final {
			c.evaluated(ck, m.Every)
		}
		d := reconcile.Decide(reconcile.Input{Version: en.Version, Record: it.Receipts.Of(m.Harness), Active: it.Active[m.Harness], Now: c.o.Now(), Policy: m.Retry})
		switch d.State {
		case reconcile.Due:
			er := polllock.EntityRun{Version: en.Version, Attempt: d.Attempt}
			if pl, ok := planned[m.Harness]; final && (!ok || pl.Version != er.Version || pl.Attempt != er.Attempt) {
				log.Info("scheduled run left for the next cycle: the entity changed since the lock was written", "item", it.ID, "harness", m.Harness)
				continue
			}
			c.addScheduledRun(p, m, er, log, d.Reason, st)
		case reconcile.GiveUp:
			p.sched.giveUps = append(p.sched.giveUps, poll.EntityQuarantine{Item: it.ID, Harness: m.Harness, Entity: en, Attempts: d.Attempt, Reason: d.Reason})
		default:
			log.Debug("scheduled match not due", "item", it.ID, "harness", m.Harness, "state", string(d.State), "reason", d.Reason)
		}
	}
}

// addScheduledRun adds m's run for version er to p, with its attribution
// record and its idempotency key (scope key @ entity version).
func (c *cycle) addScheduledRun(p *itemPlan, m poll.ScheduledMatch, er polllock.EntityRun, log *slog.Logger, why string, st *poll.CycleStats) {
	s := c.o.Schedule
	ev := reconcile.Event(p.it.Entity.Entity, s.Invoker)
	er.Attribution = reconcile.Attribute(reconcile.Scheduled{Invoker: s.Invoker, Harness: m.Harness, Revision: m.Revision,
		Policy: plan.AttributionPolicy{ScheduledDiscovery: s.Policy, MinRole: m.MinRole}, Attempt: er.Attempt, Kept: m.Seen})
	key := scope.KeyOf(m.Harness, ev, s.Forge)
	wi := plan.WorkItemOf(ev)
	wi.Source = m.Seen.Source.System
	wi.IdempotencyKey, wi.Attribution = reconcile.IdempotencyKey(string(key), er.Version), er.Attribution
	p.runs = append(p.runs, plan.Run{Harness: m.Harness, Role: m.Role, Workflow: m.Workflow, Event: ev, Key: key, WorkItem: wi, Entity: m.Seen})
	p.pos = append(p.pos, p.newAt)
	if p.sched.runs == nil {
		p.sched.runs = map[string]polllock.EntityRun{}
	}
	p.sched.runs[m.Harness] = er
	st.ScheduledDue++
	if er.Attempt > 1 {
		st.ScheduledRetries++
	}
	log.Info("scheduled run due", "item", p.it.ID, "harness", m.Harness, "version", er.Version, "attempt", er.Attempt,
		"reason", why, "attribution", er.Attribution)
}

// has reports whether p runs harness h.
func (p *itemPlan) has(h string) bool {
	for _, r := range p.runs {
		if r.Harness == h {
			return true
		}
	}
	return false
}

// planScheduled is scheduleItem for the lock plan: it records the
// entries the lock is written with (Item.EntityRuns).
func (c *cycle) planScheduled(p *itemPlan, log *slog.Logger, st *poll.CycleStats) {
	c.scheduleItem(p, false, nil, log, st)
	p.it.EntityRuns = p.sched.all()
}

// evaluated notes that a harness's match on an item (a CadenceKey) was
// decided by scheduled discovery in this cycle under its entity.every:
// that every starts again when the cycle ends (doneCadence).
func (c *cycle) evaluated(key string, every time.Duration) {
	c.schedMu.Lock()
	defer c.schedMu.Unlock()
	if c.schedDone == nil {
		c.schedDone = map[string]time.Duration{}
	}
	c.schedDone[key] = every
}

// doneCadence records the cycle's scheduled evaluations in the cadence.
func (c *cycle) doneCadence() {
	s := c.o.Schedule
	if s == nil || s.Cadence == nil || c.o.DryRun {
		return
	}
	now := c.o.Now()
	for k, every := range c.schedDone {
		s.Cadence.Done(k, every, now)
	}
}
