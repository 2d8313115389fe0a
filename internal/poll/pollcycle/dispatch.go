package pollcycle

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/intents"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// outcome is the dispatch result of one item's runs.
type outcome struct {
	refs      []plan.Ref
	succeeded int
	failed    map[string]bool // harness → its run failed
	unsent    map[string]bool // harness → its run failed and certainly started nothing (output.ErrNotStarted)
}

// collect is every run to start (owner[k] is the index in plans of
// runs[k]'s item), with its lock: a harness that could not decide a
// change is held first (holdUndecided), and the runs are keyed
// (keyRuns). Killed and blocked items start nothing.
func (c *cycle) collect(ctx context.Context, plans []itemPlan) (runs []plan.Run, owner []int) {
	for i := range plans {
		p := &plans[i]
		if p.killed || p.blocked {
			continue
		}
		c.holdUndecided(ctx, p)
		c.keyRuns(p)
		lock := c.o.Driver.PollLock(p.it)
		for _, r := range p.runs {
			r.PollLock = lock
			runs = append(runs, r)
			owner = append(owner, i)
		}
	}
	return runs, owner
}

// misfits are the items whose runs started do not fit the entries their
// lock was written with (polllock.Fits), each given its references.
func misfits(plans []itemPlan, outs []outcome) []*poll.Item {
	var misfit []*poll.Item
	for i, p := range plans {
		if !p.killed && !p.blocked && outs[i].succeeded > 0 {
			p.it.Refs = outs[i].refs
			if !polllock.Fits(p.it.Planned, p.it.Refs) {
				misfit = append(misfit, p.it)
			}
		}
	}
	return misfit
}

// finish is, per item and in parallel, the quarantine of what it gives
// up on (invalid events, entity versions) and its checkpoint.
func (c *cycle) finish(ctx context.Context, plans []itemPlan, outs []outcome) {
	idx := make([]int, len(plans))
	for i := range idx {
		idx[i] = i
	}
	poll.Each(c.o.Concurrency, idx, func(i int) {
		if !plans[i].killed {
			c.quarantineInvalid(ctx, plans[i])
			c.quarantineEntities(ctx, plans[i])
		}
		c.checkpoint(ctx, plans[i], outs[i])
	})
}

// record marks the locks of items whose lock does not fit the runs
// started dispatched with their runs.
func (c *cycle) record(ctx context.Context, started []*poll.Item) {
	if len(started) == 0 {
		return
	}
	if err := c.o.Driver.Dispatched(ctx, started); err != nil {
		c.log.Error("could not record dispatched runs on the locks", "error", err.Error())
	}
	for _, it := range started {
		if it.Err() != nil {
			c.log.Error("could not record dispatched runs on the lock", "item", it.ID, "error", it.Err().Error())
		}
	}
	c.releaseEnded(ctx, started)
}

// releaseEnded removes the lock of every item whose runs all ended before
// the record step: each run released the lock when it ended, and the
// record, a read then a write (Jira has no conditional write), may have
// brought it back, which would hold the item until the stale threshold.
// A run that ends later releases the lock itself.
func (c *cycle) releaseEnded(ctx context.Context, started []*poll.Item) {
	t := c.out.tracker
	if t == nil {
		return
	}
	for _, it := range started {
		if len(it.Refs) == 0 || !allEnded(t, it.Refs) {
			continue
		}
		if err := c.o.Driver.Release(ctx, it, true); err != nil {
			c.log.Warn("could not remove the lock of runs that already ended; it goes stale", "item", it.ID, "error", err.Error())
		}
	}
}

func allEnded(t poll.RunTracker, refs []plan.Ref) bool {
	for _, r := range refs {
		if !t.Ended(r) {
			return false
		}
	}
	return true
}

// results records each output result in outs (runs[k] belongs to
// plans[owner[k]]): a failure is refunded, counted and perhaps given up
// on (giveUp), a success counted, acknowledged and referenced.
func (c *cycle) results(ctx context.Context, plans []itemPlan, runs []plan.Run, owner []int, outs []outcome, results []outputResult) {
	var refund []plan.Run
	defer func() { c.refund(refund) }()
	healthy := slices.ContainsFunc(results, func(r outputResult) bool { return r.err == nil })
	for k, res := range results {
		o := &outs[owner[k]]
		if res.err != nil {
			refund = append(refund, runs[k])
			c.st.DispatchesFailed++
			if c.refused == nil && errors.Is(res.err, output.ErrCredentials) {
				c.refused = res.err
			}
			if c.giveUp(ctx, plans[owner[k]], runs[k], res.err, healthy) {
				continue // quarantined: the harness counts as handled
			}
			c.failed(o, runs[k].Harness, plans[owner[k]].it, res.err)
			continue
		}
		c.st.DispatchesScheduled++
		c.st.DispatchLatencies = append(c.st.DispatchLatencies, c.o.Now().Sub(plans[owner[k]].changeAt(runs[k].Harness)))
		o.succeeded++
		c.started(plans[owner[k]], runs[k])
		if res.ref != nil {
			o.refs = append(o.refs, *res.ref)
		}
	}
}

// failed marks harness h's dispatch for it as failed in o: one that
// certainly started nothing (output.ErrNotStarted) is retried at the next
// cycle; any other may have started, and its intent stays.
func (c *cycle) failed(o *outcome, h string, it *poll.Item, err error) {
	if o.failed == nil {
		o.failed = map[string]bool{}
	}
	o.failed[h] = true
	if errors.Is(err, output.ErrNotStarted) {
		if o.unsent == nil {
			o.unsent = map[string]bool{}
		}
		o.unsent[h] = true
		c.st.DispatchesRefused++
		c.log.Error("dispatch refused, nothing started; the next cycle retries", "item", it.ID, "harness", h, "error", err.Error())
		return
	}
	c.log.Error("dispatch failed and its run may exist; a later cycle asks the platform once its intent settled",
		"item", it.ID, "harness", h, "error", err.Error())
}

type outputResult struct {
	ref *plan.Ref
	err error
}

// callOutput dispatches runs; a missing result counts as a failure.
func (c *cycle) callOutput(ctx context.Context, runs []plan.Run) []outputResult {
	res := c.o.Output.Dispatch(ctx, runs)
	out := make([]outputResult, len(runs))
	for k := range out {
		if k >= len(res) {
			out[k].err = errors.New("output driver returned no result for this run")
			continue
		}
		out[k] = outputResult{ref: res[k].Ref, err: res[k].Err}
	}
	return out
}

func (c *cycle) checkpoint(ctx context.Context, p itemPlan, o outcome) {
	it := p.it
	switch {
	case p.killed:
		c.log.Info("kill switch is on: item left unchanged", "item", it.ID)
		c.release(ctx, it, false)
		return
	case p.blocked:
		c.release(ctx, it, true)
		return
	case o.succeeded == 0 && p.found == 0 && len(o.failed) > 0:
		c.forgetUnsent(ctx, p, o)
		c.release(ctx, it, true)
		return
	}
	cp := poll.Checkpoint{At: p.newAt.At, ID: p.newAt.ID, Intents: intents.Kept(p.intents, o.failed, o.unsent), Runs: o.refs}
	for h := range o.failed {
		if cp.Retry == nil {
			cp.Retry = map[string]time.Time{}
		}
		cp.Retry[h] = it.Base.Pos(h)
	}
	if p.newAt.After(it.Base.PosAt()) || it.Base.Pending() || len(cp.Retry) > 0 || len(it.Base.Intents) > 0 || len(p.intents) > 0 {
		if err := c.o.Driver.Advance(ctx, it, cp); err != nil {
			c.log.Error("could not advance the checkpoint; changes may be dispatched again", "item", it.ID, "error", err.Error())
		}
	}
	if o.succeeded == 0 {
		c.release(ctx, it, false)
	}
}
