// Package pollcycle runs one poll cycle (Run) over a driver of package
// poll's contract: stages.go composes it stage by stage (discover → select
// → detect → resolve entities → lock → verify → decide → dispatch →
// record → checkpoint → feedback) and names the file of each stage:
// cycle.go (discovery, selection, detection, the lock and its checks),
// entitystage.go (the entity stage), decide.go (an item's decision),
// intent.go (crash-safe dispatch, its rule in package intents), admit.go
// (the circuit breaker), schedule.go and schedule_dispatch.go (scheduled
// discovery), quarantine.go and undecided.go (changes given up on),
// budget.go (a cycle without locks, its rule in package budget),
// dispatch.go (the output, the record, the checkpoint), feedback.go. The
// driver's capabilities are read once, when Run builds the cycle, and so
// are the output's optional interfaces (capabilities.go).
package pollcycle

import (
	"context"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// run is one cycle: discovery, then the selected items' work; a driver
// without locks works on every eligible item in batches while the API
// budget lasts; a dry run decides without writing.
func (c *cycle) run(ctx context.Context) ([]plan.Run, error) {
	disc, err := c.discover(ctx) // cycle.go
	if err != nil {
		return nil, err
	}
	eligible := c.sweepDue(disc.Swept, disc.Eligible) // scheduled discovery: schedule_dispatch.go
	if !c.o.DryRun {
		eligible = c.settled(eligible) // intents too young to tell: intent.go
	}
	if c.caps.NoLocks != nil {
		return c.budgeted(ctx, eligible) // no lock: no N, no stale lock (budget.go)
	}
	sel := c.choose(eligible, disc.Ordered) // poll.Select
	if c.o.DryRun {
		return c.dryRun(ctx, sel)
	}
	if err := c.removeStale(ctx, disc.Stale); err != nil {
		return nil, err
	}
	if len(sel) == 0 || ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, c.work(ctx, sel)
}

// work detects, rechecks, locks, verifies, decides, dispatches and
// checkpoints sel. Detection comes before the lock, so that the lock is
// written once, already listing the runs the changes call for
// (Item.Planned): each run claims its entry when it starts, and the lock
// needs no second write after the dispatch. The consistent re-read
// (Recheck) stays right before the lock write: the jitter between the
// lock write and its verification must cover the time from another
// poller's re-read to its write. Every lock written is either handed to a
// dispatched run or removed before work returns.
func (c *cycle) work(ctx context.Context, sel []*poll.Item) error {
	keep := context.WithoutCancel(ctx)    // rollback and in-flight dispatch outlive a stop request
	todo, err := c.detect(ctx, keep, sel) // cycle.go
	if err != nil {
		return err
	}
	if err := c.resolveEntities(ctx, todo); err != nil { // entitystage.go
		return err // nothing is locked yet
	}
	c.planLocks(todo) // a first decision: the lock's entries
	reread := c.o.Now()
	if todo, err = c.recheck(ctx, todo); err != nil {
		return err
	}
	if err := c.lock(ctx, keep, todo); err != nil {
		return err
	}
	held, err := c.verify(ctx, keep, c.inState(todo, poll.StateHeld), c.o.Now().Sub(reread))
	if err != nil {
		return err
	}
	c.dispatch(keep, c.decide(keep, held)) // decide.go, schedule.go
	return nil
}

// dispatch admits and dispatches the planned runs of all items in one
// output call, then records and checkpoints every item in the order of the
// delivery contract (docs/polling.md): intent → dispatch → (plan printers:
// flush) → record → checkpoint.
//   - a stale intent whose run the platform has: not dispatched again, the
//     harness counts as handled (recoverIntents);
//   - some run started: the checkpoint advances with the run references
//     (a failed harness keeps its position and its intent). The lock was
//     written listing one entry per planned run, which each run claims
//     when it starts; only an item whose runs started do not fit those
//     entries (a harness failed, was deferred or recovered, or the
//     verified checkpoint changed the decision) first gets its lock
//     marked dispatched with the references (one batch for all such
//     items), so that no entry is left that no run removes;
//   - every run failed: the lock is removed and the checkpoint is left, so
//     the next cycle retries;
//   - nothing to run: the checkpoint advances past the evaluated changes
//     and the lock is removed;
//   - kill switch, or a failed platform lookup or intent write: the lock
//     is removed, the checkpoint is left.
func (c *cycle) dispatch(ctx context.Context, plans []itemPlan) {
	c.recoverIntents(ctx, plans)         // intent.go
	runs, owner := c.collect(ctx, plans) // dispatch.go, undecided.go
	outs := make([]outcome, len(plans))
	for i := range plans {
		outs[i].failHeld(plans[i])
	}
	if len(runs) > 0 {
		c.start(ctx, plans, runs, owner, outs)
	}
	c.record(ctx, misfits(plans, outs)) // Locker.Dispatched
	c.finish(ctx, plans, outs)          // quarantine.go, schedule_dispatch.go, checkpoint
	c.acknowledge(ctx)                  // feedback.go
}

// start admits runs (owner[k] is the index in plans of runs[k]'s item),
// dispatches the admitted ones and records each result in outs.
func (c *cycle) start(ctx context.Context, plans []itemPlan, runs []plan.Run, owner []int, outs []outcome) {
	runs, owner = c.admit(plans, runs, owner, outs)       // admit.go: the circuit breaker
	runs, owner = c.recordTries(ctx, plans, runs, owner)  // schedule_dispatch.go: receipts
	runs, owner = c.writeIntents(ctx, plans, runs, owner) // intent.go
	var results []outputResult
	if len(runs) > 0 {
		results = c.callOutput(ctx, runs)
		c.flush(ctx, results) // plan printers
	}
	c.results(ctx, plans, runs, owner, outs, results)
}

// dryRun detects, resolves and decides sel and returns the runs a real
// cycle would dispatch, writing nothing; the plan is counted apart
// (RunsPlanned).
func (c *cycle) dryRun(ctx context.Context, sel []*poll.Item) ([]plan.Run, error) {
	if len(sel) == 0 {
		return []plan.Run{}, nil
	}
	if err := c.o.Driver.Detect(ctx, sel); err != nil {
		return nil, err
	}
	var live []*poll.Item
	for _, it := range sel {
		if st := it.State(); st != poll.StateGone && st != poll.StateFailed {
			live = append(live, it)
		}
	}
	if err := c.resolveEntities(ctx, live); err != nil {
		return nil, err
	}
	planned := []plan.Run{}
	for _, it := range live {
		p := decideItem(it, c.o.Core, c.validate, c.log, &c.st)
		c.scheduleItem(&p, false, nil, c.log, &c.st)
		for h := range p.undecided {
			p.drop(h)
		}
		for _, r := range p.runs {
			r.PollLock = unlocked(c.o.Driver.PollLock(it))
			planned = append(planned, r)
		}
	}
	// Nothing was dispatched: the plan is counted apart.
	c.st.RunsPlanned += len(planned)
	return planned, nil
}
