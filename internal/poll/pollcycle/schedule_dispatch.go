package pollcycle

import (
	"context"
	"log/slog"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// sweepDue adds to eligible the swept items (Discovery.Swept: candidates
// of scheduled discovery with no change to decide) whose entity is due
// for some harness, or owed a quarantine, by a first evaluation; the
// cycle decides them again once they are locked.
func (c *cycle) sweepDue(swept, eligible []*poll.Item) []*poll.Item {
	if !c.o.Schedule.Allows() || len(swept) == 0 {
		return eligible
	}
	in := map[string]bool{}
	for _, it := range eligible {
		in[it.ID] = true
	}
	var scratch poll.CycleStats // counted by the decision that dispatches
	quiet := slog.New(slog.DiscardHandler)
	for _, it := range swept {
		if in[it.ID] {
			continue
		}
		p := itemPlan{it: it, newAt: it.Base.PosAt()}
		c.scheduleItem(&p, false, nil, quiet, &scratch)
		c.st.ScheduledEvaluated++
		if len(p.sched.runs) > 0 || len(p.sched.giveUps) > 0 {
			it.Swept = true
			in[it.ID] = true
			eligible = append(eligible, it)
			c.st.ScheduledSwept++
		}
	}
	return eligible
}

// recordTries writes, for every item with entity runs among runs
// (owner[k] is the index in plans of runs[k]'s item; scheduled runs and
// event-backed runs of entity-source harnesses), one more try of each
// (ReceiptKeeper.Tried) before anything is dispatched, and returns the
// runs still to dispatch: the scheduled runs of an item whose write
// failed are dropped (the entity stays due; a later cycle tries again),
// and so are all scheduled runs when the driver keeps no receipts (their
// retries could not be bounded). Event-backed runs are dispatched
// whatever the write did (one run per change, as always).
func (c *cycle) recordTries(ctx context.Context, plans []itemPlan, runs []plan.Run, owner []int) ([]plan.Run, []int) {
	var rk poll.ReceiptKeeper = c.caps.Scheduled // nil without it
	var items []int
	seen := map[int]bool{}
	for k, r := range runs {
		if _, ok := plans[owner[k]].sched.all()[r.Harness]; ok && !seen[owner[k]] {
			seen[owner[k]] = true
			items = append(items, owner[k])
		}
	}
	if len(items) == 0 {
		return runs, owner
	}
	failed := make([]bool, len(plans))
	poll.Each(c.o.Concurrency, items, func(i int) {
		p := &plans[i]
		if rk == nil {
			if len(p.sched.runs) > 0 {
				failed[i] = true
				c.log.Error("scheduled runs dropped: the input driver keeps no receipts", "item", p.it.ID)
			}
			return
		}
		if err := rk.Tried(ctx, p.it, p.sched.all()); err != nil {
			failed[i] = true
			c.log.Error("scheduled runs dropped: could not record their tries on the item; the entity stays due", "item", p.it.ID, "error", err.Error())
		}
	})
	var keptRuns []plan.Run
	var keptOwner []int
	for k, r := range runs {
		if _, ok := plans[owner[k]].sched.runs[r.Harness]; ok && failed[owner[k]] {
			plans[owner[k]].drop(r.Harness)
			continue
		}
		keptRuns = append(keptRuns, r)
		keptOwner = append(keptOwner, owner[k])
	}
	return keptRuns, keptOwner
}

// quarantineEntities records the entity versions p gives up on: in the
// item's quarantine record (Quarantiner; a driver without one is logged
// only), as given up in its receipts
// (ReceiptKeeper.GaveUp, so that it is recorded once), logged, counted,
// and told to Schedule.Notify (called from the cycle's per-item
// goroutines: it must be safe for concurrent use).
func (c *cycle) quarantineEntities(ctx context.Context, p itemPlan) {
	if len(p.sched.giveUps) == 0 {
		return
	}
	q := c.caps.Quarantine
	var rk poll.ReceiptKeeper = c.caps.Scheduled // nil without it
	for _, g := range p.sched.giveUps {
		ps := poll.Poison{Harness: g.Harness, Change: "entity@" + g.Entity.Version, At: g.Entity.State.Updated, Reason: g.Reason}
		if rk == nil {
			continue
		}
		if q == nil {
			// The driver's receipts are its record (GaveUp below).
			c.log.Error("entity version quarantined", "item", p.it.ID, "harness", g.Harness,
				"version", g.Entity.Version, "attempts", g.Attempts, "reason", g.Reason)
		} else if !c.quarantine(ctx, q, p.it, ps, g.Attempts) {
			continue
		}
		if err := rk.GaveUp(ctx, p.it, g.Harness, g.Entity.Version); err != nil {
			c.log.Error("could not mark the quarantined version in the item's receipts; it may be quarantined again", "item", p.it.ID,
				"harness", g.Harness, "error", err.Error())
		}
		c.schedMu.Lock()
		c.st.ScheduledQuarantined++
		c.schedMu.Unlock()
		if n := c.o.Schedule.Notify; n != nil {
			n(ctx, g)
		}
	}
}
