package pollcycle

import (
	"context"
	"maps"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/intents"
)

// lookupSince maps an intent's time, on the tracker's clock, onto the
// output platform's clock when the output knows it, less
// intents.ClockMargin; else it is the intent's time.
func (c *cycle) lookupSince(ctx context.Context, ts time.Time) time.Time {
	pc := c.out.clock
	if pc == nil {
		return ts
	}
	now, ok := pc.PlatformNow(ctx)
	if !ok {
		return ts
	}
	return intents.Since(ts, c.o.Now(), now)
}

func (c *cycle) finder() poll.DispatchFinder { return c.out.finder }

// recoverIntents asks the platform about the intents a previous holder of
// each item's lock left behind (intents.Recovery); a blocked item's lock
// is removed and its checkpoint left. An item is asked about only when it
// has runs and intents.
func (c *cycle) recoverIntents(ctx context.Context, plans []itemPlan) {
	f := c.finder()
	if f == nil {
		return
	}
	idx := make([]int, 0, len(plans))
	for i, p := range plans {
		if !p.killed && len(p.it.Base.Intents) > 0 && len(p.runs) > 0 {
			idx = append(idx, i)
		}
	}
	rec := intents.Recovery{Find: f.FindDispatched, Since: c.lookupSince, Now: c.o.Now, Settle: c.o.IntentSettle, Log: c.log}
	poll.Each(c.o.Concurrency, idx, func(i int) {
		p := &plans[i]
		out := rec.Recover(ctx, intents.Item{ID: p.it.ID, Runs: p.runs, Pos: p.pos, Intents: p.it.Base.Intents, GoneLocks: p.it.GoneLocks})
		p.found += out.Found
		p.blocked = p.blocked || out.Blocked
		if !out.Blocked {
			p.runs, p.pos = out.Runs, out.Pos
		}
	})
	for _, i := range idx {
		c.st.DispatchesRecovered += plans[i].found
	}
}

// settled returns the items that are not waiting out the settle time of
// an intent (Options.IntentSettle): an item with a younger intent is
// left out before anything is read or written on it, since the platform's
// "no such run" would not be believed yet; it costs no lock write. It is
// offered again once the intent settled.
func (c *cycle) settled(items []*poll.Item) []*poll.Item {
	if c.finder() == nil || c.o.IntentSettle < 0 {
		return items
	}
	now := c.o.Now()
	out := items[:0:0]
	for _, it := range items {
		if young, in := intents.Young(it.Base.Intents, now, c.o.IntentSettle); young {
			c.st.ItemsSettling++
			c.log.Debug("dispatch of unknown outcome too recent to tell whether its run started; item left until its intent settled",
				"item", it.ID, "key", in.Key, "settle_ms", c.o.IntentSettle.Milliseconds())
			continue
		}
		out = append(out, it)
	}
	return out
}

// keyRuns gives every run the idempotency key of its change when the
// output can find runs by it.
func (c *cycle) keyRuns(p *itemPlan) {
	if c.finder() == nil {
		return
	}
	for i := range p.runs {
		if _, ok := p.sched.runs[p.runs[i].Harness]; ok {
			continue // keyed by its entity version (addScheduledRun)
		}
		p.runs[i].WorkItem.IdempotencyKey = changepos.Key(string(p.runs[i].Key), p.pos[i])
	}
}

// writeIntents records, with one checkpoint write per item, an intent for
// each admitted run (added to the intents already there) (runs[k] belongs to plans[owner[k]]) before any is
// dispatched. Runs of items whose write failed are dropped (the item is
// blocked). It returns the runs and owners still to dispatch.
func (c *cycle) writeIntents(ctx context.Context, plans []itemPlan, runs []plan.Run, owner []int) ([]plan.Run, []int) {
	if c.finder() == nil || len(runs) == 0 {
		return runs, owner
	}
	now := c.o.Now()
	var items []int
	for k, r := range runs {
		p := &plans[owner[k]]
		if p.intents == nil {
			p.intents = map[string]lastcheck.Intent{}
			items = append(items, owner[k])
		}
		p.intents[r.Harness] = lastcheck.Intent{Key: r.WorkItem.IdempotencyKey, Change: p.changeAt(r.Harness), TS: now,
			Lock: c.lockID(p.it)}
	}
	poll.Each(c.o.Concurrency, items, func(i int) {
		p := &plans[i]
		// Earlier intents stay until the checkpoint: one whose run was
		// found must still cover its harness if this poller dies too.
		cp := p.it.Base.Clone()
		if cp.Intents == nil {
			cp.Intents = map[string]lastcheck.Intent{}
		}
		maps.Copy(cp.Intents, p.intents)
		if err := c.o.Driver.Advance(ctx, p.it, cp); err != nil {
			c.log.Error("could not record the dispatch intent; item left for the next cycle", "item", p.it.ID, "error", err.Error())
			p.blocked = true
		}
	})
	var keptRuns, dropped []plan.Run
	var keptOwner []int
	for k, r := range runs {
		if plans[owner[k]].blocked {
			dropped = append(dropped, r)
			continue
		}
		keptRuns, keptOwner = append(keptRuns, r), append(keptOwner, owner[k])
	}
	c.refund(dropped) // admitted, but never dispatched: they started nothing
	return keptRuns, keptOwner
}

// forgetUnsent removes, when every run of p's item failed, the intents
// written this cycle for dispatches that certainly started nothing
// (output.ErrNotStarted), so that the next cycle dispatches them again
// at once instead of waiting out the settle time; the checkpoint's
// positions stay where they were.
func (c *cycle) forgetUnsent(ctx context.Context, p itemPlan, o outcome) {
	drop := false
	for h := range o.unsent {
		if _, ok := p.intents[h]; ok {
			drop = true
		}
	}
	if !drop {
		return
	}
	cp := p.it.Base.Clone()
	if cp.Intents == nil {
		cp.Intents = map[string]lastcheck.Intent{}
	}
	maps.Copy(cp.Intents, p.intents)
	for h := range o.unsent {
		delete(cp.Intents, h)
	}
	if len(cp.Intents) == 0 {
		cp.Intents = nil
	}
	if err := c.o.Driver.Advance(ctx, p.it, cp); err != nil {
		c.log.Error("could not clear the intent of a refused dispatch; the next holder waits out its settle time", "item", p.it.ID, "error", err.Error())
	}
}

// flush makes a plan printer write its plan before anything is recorded;
// on failure every result becomes an error (nothing was printed).
func (c *cycle) flush(ctx context.Context, results []outputResult) {
	f := c.out.flusher
	if f == nil {
		return
	}
	if err := f.Flush(ctx); err != nil {
		for k := range results {
			if results[k].err == nil {
				results[k] = outputResult{err: err}
			}
		}
	}
}

// lockID is the id of the lock the item's runs are dispatched under (""
// without one).
func (c *cycle) lockID(it *poll.Item) string {
	if pl := c.o.Driver.PollLock(it); pl != nil {
		return pl.ID
	}
	return ""
}
