package poll

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// outcome is the dispatch result of one item's runs.
type outcome struct {
	refs      []plan.Ref
	succeeded int
	failed    map[string]bool // harness → its run failed
}

// dispatch admits and dispatches the planned runs of all items in one
// output call, then checkpoints every item (ARCHITECTURE.md, lock protocol):
//   - some run started: lock phase dispatched with the run references
//     (one batch for all items), then the checkpoint advances (a failed
//     harness keeps its position);
//   - every run failed: the lock is removed and the checkpoint is left, so
//     the next cycle retries;
//   - nothing to run: the checkpoint advances past the evaluated changes
//     and the lock is removed;
//   - kill switch: the lock is removed, the checkpoint is left.
func (c *cycle) dispatch(ctx context.Context, plans []itemPlan) {
	var runs []plan.Run
	var owner []int
	for i := range plans {
		p := &plans[i]
		if p.killed {
			continue
		}
		lock := c.o.Driver.PollLock(p.it)
		for _, r := range p.runs {
			r.PollLock = lock
			runs = append(runs, r)
			owner = append(owner, i)
		}
	}
	outs := make([]outcome, len(plans))
	if len(runs) > 0 {
		c.start(ctx, plans, runs, owner, outs)
	}
	var started []*Item
	for i, p := range plans {
		if !p.killed && outs[i].succeeded > 0 {
			p.it.Refs = outs[i].refs
			started = append(started, p.it)
		}
	}
	if len(started) > 0 {
		if err := c.o.Driver.Dispatched(ctx, started); err != nil {
			c.log.Error("could not record dispatched runs on the locks", "error", err.Error())
		}
		for _, it := range started {
			if it.Err() != nil {
				c.log.Error("could not record dispatched runs on the lock", "item", it.ID, "error", it.Err().Error())
			}
		}
	}
	idx := make([]int, len(plans))
	for i := range idx {
		idx[i] = i
	}
	Each(c.o.Concurrency, idx, func(i int) { c.checkpoint(ctx, plans[i], outs[i]) })
}

// start admits runs (owner[k] is the index in plans of runs[k]'s item),
// dispatches the admitted ones and records each result in outs.
func (c *cycle) start(ctx context.Context, plans []itemPlan, runs []plan.Run, owner []int, outs []outcome) {
	admitted, skipped := c.o.Core.Admit(runs)
	c.st.RunsRateLimited += len(skipped)
	runs, owner = keepAdmitted(runs, owner, admitted)
	var results []outputResult
	if len(runs) > 0 {
		results = c.callOutput(ctx, runs)
	}
	for k, res := range results {
		o := &outs[owner[k]]
		if res.err != nil {
			c.st.DispatchesFailed++
			if c.refused == nil && errors.Is(res.err, output.ErrCredentials) {
				c.refused = res.err
			}
			if o.failed == nil {
				o.failed = map[string]bool{}
			}
			o.failed[runs[k].Harness] = true
			c.log.Error("dispatch failed; the next cycle retries", "item", plans[owner[k]].it.ID,
				"harness", runs[k].Harness, "error", res.err.Error())
			continue
		}
		c.st.DispatchesScheduled++
		o.succeeded++
		if res.ref != nil {
			o.refs = append(o.refs, *res.ref)
		}
	}
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

// keepAdmitted filters runs (and their owners) to those admitted, which the
// core returns in order.
func keepAdmitted(runs []plan.Run, owner []int, admitted []plan.Run) ([]plan.Run, []int) {
	if len(admitted) == len(runs) {
		return runs, owner
	}
	var keptRuns []plan.Run
	var keptOwner []int
	j := 0
	for k, r := range runs {
		if j < len(admitted) && admitted[j].Key == r.Key && admitted[j].Harness == r.Harness {
			keptRuns = append(keptRuns, r)
			keptOwner = append(keptOwner, owner[k])
			j++
		}
	}
	return keptRuns, keptOwner
}

func (c *cycle) checkpoint(ctx context.Context, p itemPlan, o outcome) {
	it := p.it
	switch {
	case p.killed:
		c.log.Info("kill switch is on: item left unchanged", "item", it.ID)
		c.release(ctx, it, false)
		return
	case o.succeeded == 0 && len(o.failed) > 0:
		c.release(ctx, it, true)
		return
	}
	cp := Checkpoint{At: p.newAt}
	for h := range o.failed {
		if cp.Retry == nil {
			cp.Retry = map[string]time.Time{}
		}
		cp.Retry[h] = it.Base.Pos(h)
	}
	if cp.At.After(it.Base.At) || it.Base.Pending() || len(cp.Retry) > 0 {
		if err := c.o.Driver.Advance(ctx, it, cp); err != nil {
			c.log.Error("could not advance the checkpoint; changes may be dispatched again", "item", it.ID, "error", err.Error())
		}
	}
	if o.succeeded == 0 {
		c.release(ctx, it, false)
	}
}

// Each calls f for every element, at most n at a time, and waits.
func Each[T any](n int, xs []T, f func(T)) {
	if n < 1 {
		n = 1
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, x := range xs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(x)
		}()
	}
	wg.Wait()
}
