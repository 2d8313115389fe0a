package poll

// Crash-safe dispatch (docs/polling.md, "Delivery contract"): before an
// item's runs are dispatched, an intent per harness is written into the
// item's checkpoint; a poller that later finds an intent there asks the
// execution platform whether the run exists before dispatching again.

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// DispatchFinder is implemented by output drivers whose platform records
// the idempotency key a run carries (run.WorkItem.IdempotencyKey) and can
// be asked for it: FindDispatched reports whether a run with that key
// was started at or after since, with its reference when the platform
// gives one. With such an output the cycle writes intents and recovers
// from them; with any other output it does not (a crash between dispatch
// and checkpoint dispatches again).
type DispatchFinder interface {
	FindDispatched(ctx context.Context, run plan.Run, since time.Time) (ref *plan.Ref, found bool, err error)
}

// Flusher is implemented by output drivers that print a plan instead of
// starting runs: Flush writes every entry dispatched so far where its
// consumer reads it. The cycle calls it after dispatching and before
// recording and checkpointing, so that a crash can print a plan entry
// twice but never lose one; a Flush error fails every run of the call.
type Flusher interface {
	Flush(ctx context.Context) error
}

// PlatformClock is implemented by a DispatchFinder that knows its
// platform's clock (package trackerclock), reading it from the platform
// when it has not yet: ok is false when it cannot.
// An intent's time is on the tracker's clock; the lookup of its run asks
// for runs created since then on the platform's clock.
type PlatformClock interface {
	PlatformNow(ctx context.Context) (now time.Time, ok bool)
}

// ClockMargin is how much earlier than the intent, mapped onto the
// platform's clock, the lookup of its run starts: the error of the three
// clock estimates involved, each within trackerclock.MaxError (the
// tracker's clock of the poller that wrote the intent, and this poller's
// estimates of the tracker's and of the platform's clocks).
const ClockMargin = trackerclock.ClockError + trackerclock.MaxError

// lookupSince maps an intent's time, on the tracker's clock, onto the
// output platform's clock when the output knows it, less ClockMargin; else
// it is the intent's time.
func (c *cycle) lookupSince(ctx context.Context, ts time.Time) time.Time {
	pc := c.out.clock
	if pc == nil {
		return ts
	}
	now, ok := pc.PlatformNow(ctx)
	if !ok {
		return ts
	}
	return ts.Add(now.Sub(c.o.Now())).Add(-ClockMargin)
}

func (c *cycle) finder() DispatchFinder { return c.out.finder }

// recoverIntents asks the platform about the intents a previous holder of
// each item's lock left behind. A run of the intent's change (or an older
// one) that the platform has is not dispatched again: the harness counts
// as handled. A failed lookup blocks the item for this cycle (its lock is
// removed, its checkpoint left), since dispatching could start the run
// twice. An intent written under a lock the cycle's takeover made void
// (Item.GoneLocks) asks nothing: its run cannot start any more.
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
	Each(c.o.Concurrency, idx, func(i int) { c.recoverItem(ctx, f, &plans[i]) })
	for _, i := range idx {
		c.st.DispatchesRecovered += plans[i].found
	}
}

func (c *cycle) recoverItem(ctx context.Context, f DispatchFinder, p *itemPlan) {
	var runs []plan.Run
	var pos []changepos.Pos
	for i, r := range p.runs {
		in, ok := p.it.Base.Intents[r.Harness]
		if ok && in.Future(c.o.Now()) {
			c.log.Warn("intent with a time in the future: not believed; its change is dispatched again", "item", p.it.ID,
				"harness", r.Harness, "key", in.Key, "ts", in.TS.UTC().Format(time.RFC3339Nano), "change", in.Change.UTC().Format(time.RFC3339Nano))
			ok = false
		}
		newer := ok && p.pos[i].After(intentPos(in))
		if newer {
			c.log.Info("interrupted dispatch superseded by a newer change", "item", p.it.ID, "harness", r.Harness, "key", in.Key)
		}
		gone := ok && in.Lock != "" && slices.Contains(p.it.GoneLocks, in.Lock)
		if gone {
			c.log.Info("interrupted dispatch whose lock was taken over unclaimed: dispatched again", "item", p.it.ID,
				"harness", r.Harness, "key", in.Key)
		}
		if !ok || gone || newer {
			runs, pos = append(runs, r), append(pos, p.pos[i])
			continue // no intent, its run cannot start, or a newer change supersedes it
		}
		r.WorkItem.IdempotencyKey = in.Key
		c.log.Info("interrupted dispatch: asking the platform whether its run exists", "item", p.it.ID,
			"harness", r.Harness, "key", in.Key, "since", in.TS.UTC().Format(time.RFC3339Nano))
		ref, found, err := f.FindDispatched(ctx, r, c.lookupSince(ctx, in.TS))
		if err != nil {
			c.log.Error("could not ask the platform whether an interrupted dispatch started; item left for the next cycle",
				"item", p.it.ID, "harness", r.Harness, "key", in.Key, "error", err.Error())
			p.blocked = true
			return
		}
		if !found && c.o.Now().Sub(in.TS) < c.o.IntentSettle {
			c.log.Info("interrupted dispatch too recent to tell whether its run started; item left for a later cycle",
				"item", p.it.ID, "harness", r.Harness, "key", in.Key, "settle_ms", c.o.IntentSettle.Milliseconds())
			p.blocked = true
			return
		}
		if !found {
			runs, pos = append(runs, r), append(pos, p.pos[i])
			continue
		}
		p.found++
		attrs := []any{"item", p.it.ID, "harness", r.Harness, "key", in.Key}
		if ref != nil {
			attrs = append(attrs, "run_id", ref.ID, "url", ref.URL)
		}
		c.log.Info("run of an interrupted dispatch found on the platform; not dispatched again", attrs...)
	}
	p.runs, p.pos = runs, pos
}

// intentPos is the position of the change an intent's run was dispatched
// for: the one its key names, else (a key without one) its change time.
func intentPos(in lastcheck.Intent) changepos.Pos {
	if pos, ok := changepos.OfKey(in.Key); ok {
		return pos
	}
	return changepos.At(in.Change)
}

// settled returns the items that are not waiting out the settle time of
// an intent (Options.IntentSettle): an item with a younger intent is
// left out before anything is read or written on it, since the platform's
// "no such run" would not be believed yet; it costs no lock write. It is
// offered again once the intent settled.
func (c *cycle) settled(items []*Item) []*Item {
	if c.finder() == nil || c.o.IntentSettle < 0 {
		return items
	}
	now := c.o.Now()
	out := items[:0:0]
	for _, it := range items {
		if young, in := c.youngIntent(it, now); young {
			c.st.ItemsSettling++
			c.log.Debug("dispatch of unknown outcome too recent to tell whether its run started; item left until its intent settled",
				"item", it.ID, "key", in.Key, "settle_ms", c.o.IntentSettle.Milliseconds())
			continue
		}
		out = append(out, it)
	}
	return out
}

// youngIntent reports whether it has an intent younger than IntentSettle;
// one from the future (lastcheck.Intent.Future) is not believed.
func (c *cycle) youngIntent(it *Item, now time.Time) (bool, lastcheck.Intent) {
	for _, in := range it.Base.Intents {
		if !in.Future(now) && now.Sub(in.TS) < c.o.IntentSettle {
			return true, in
		}
	}
	return false, lastcheck.Intent{}
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
	Each(c.o.Concurrency, items, func(i int) {
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

// checkpointIntents is what the checkpoint after dispatch keeps of the
// intents: those of the harnesses whose dispatch failed with an unknown
// outcome, since a failure after the request was sent may have started
// the run; the next holder asks the platform. A dispatch that certainly
// started nothing (o.unsent) leaves no intent.
func checkpointIntents(p itemPlan, o outcome) map[string]lastcheck.Intent {
	var out map[string]lastcheck.Intent
	for h := range o.failed {
		if o.unsent[h] {
			continue
		}
		if in, ok := p.intents[h]; ok {
			if out == nil {
				out = map[string]lastcheck.Intent{}
			}
			out[h] = in
		}
	}
	return out
}

// lockID is the id of the lock the item's runs are dispatched under (""
// without one).
func (c *cycle) lockID(it *Item) string {
	if pl := c.o.Driver.PollLock(it); pl != nil {
		return pl.ID
	}
	return ""
}
