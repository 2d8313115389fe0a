package poll

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// The API budget of a cycle of a driver without locks (NoLocks: github-poll,
// gitlab-poll). Such a cycle holds nothing an item would wait for, so it
// takes every due item, longest-waiting first, while the budget lasts:
//   - the cycle's requests: its driver's (Usage.Calls, discovery included)
//     and RunCost for every run it asked the output to start, under
//     Options.Requests;
//   - the platform's remaining rate-limit budget as the driver's client
//     last saw it (Usage.RateBudget), less what the cycle spent since,
//     above the reserve left to the token's other users (RateReserve).
//
// The items left are the longest-waiting ones of the next cycle.
const (
	// DefaultRequests is Options.Requests when zero (config
	// requests_per_cycle).
	DefaultRequests = config.DefaultRequestsPerCycle
	// RunCost is what the budget counts for each run the output is asked
	// to start: its dispatch and the settle read after it, the least a
	// forge output makes (its client is not the driver's, so its
	// requests are not in Usage.Calls).
	RunCost = 2
	// RateReserve is the share of the platform's rate limit a cycle
	// leaves unspent: it takes no more items once the remaining budget is
	// at or below it.
	RateReserve = 0.2
	// budgetBatch is the most items worked on at once: each batch is
	// detected, decided and dispatched before the budget is asked about
	// the next one, from what the batches before it cost.
	budgetBatch = 50
	// firstBatch is the first batch, which measures what an item costs
	// (the default of lock.n).
	firstBatch = DefaultN
)

// budget is what a cycle of a driver without locks may still spend.
type budget struct {
	requests int   // Options.Requests
	begin    Usage // at the cycle's start
	work     Usage // when the first item's work began (after discovery)
	done     int   // items worked on since
}

// allows is how many more items the budget allows at usage u, after runs
// runs were handed to the output, at the platform's time now (0: none):
// firstBatch to begin with, then as many as the cost per item measured
// so far fits into what is left (at least one while anything is left, at
// most budgetBatch). A rate budget whose reset time has passed says
// nothing of the new window and is not used.
func (b *budget) allows(u Usage, runs int, now time.Time) int {
	worked := u.Calls - b.work.Calls + RunCost*runs // spent on the items
	left := float64(b.requests - (b.work.Calls - b.begin.Calls) - worked)
	if left <= 0 {
		return 0
	}
	n := firstBatch
	if b.done > 0 {
		n = fits(left, float64(worked)/float64(b.done))
	}
	rb, w := u.RateBudget, b.work.RateBudget
	if !rb.Known || rb.Limit <= 0 || !rb.Reset.IsZero() && !rb.Reset.After(now) {
		return n
	}
	remaining, platform := rb.Remaining, worked
	if w.Known && w.Limit == rb.Limit && w.Reset.Equal(rb.Reset) { // the same window
		remaining = min(remaining, w.Remaining-worked) // what the client saw may predate the dispatches
		platform = max(platform, w.Remaining-rb.Remaining)
	}
	above := float64(remaining) - math.Ceil(float64(rb.Limit)*RateReserve)
	if above <= 0 {
		return 0
	}
	if b.done > 0 {
		n = min(n, fits(above, float64(platform)/float64(b.done)))
	}
	return n
}

// fits is how many items of cost each fit into left: at least 1, at most
// budgetBatch.
func fits(left, each float64) int {
	if each <= 0 {
		return budgetBatch
	}
	return int(min(max(math.Floor(left/each), 1), budgetBatch))
}

// budgeted works on the eligible items of a driver without locks while
// the budget allows, longest-waiting first (ByWait), in batches: every
// item is detected and decided before anything is selected, so an item
// whose changes start nothing (an outsider's, a bot's, a comment with no
// command) costs its detection and takes nothing from the others. The
// items left wait for the next cycle (CycleStats.ItemsDeferred).
func (c *cycle) budgeted(ctx context.Context, eligible []*Item) ([]plan.Run, error) {
	items := slices.Clone(eligible)
	slices.SortStableFunc(items, ByWait)
	b := budget{requests: c.o.Requests, begin: c.begin, work: c.o.Driver.Usage()}
	var planned []plan.Run
	if c.o.DryRun {
		planned = []plan.Run{}
	}
	for len(items) > 0 && ctx.Err() == nil {
		u := c.o.Driver.Usage()
		runs := c.st.DispatchesScheduled + c.st.DispatchesFailed
		n := min(b.allows(u, runs, c.o.Now()), len(items))
		if n == 0 {
			c.st.ItemsDeferred = len(items)
			c.log.Info("API budget of the cycle spent: the items left wait for the next cycle", "items", len(items),
				"requests", u.Calls-c.begin.Calls+RunCost*runs, "requests_per_cycle", c.o.Requests,
				"rate_limit_remaining", u.RateBudget.Remaining)
			break
		}
		batch := items[:n]
		items = items[n:]
		c.st.Selected += n
		if c.o.DryRun {
			p, err := c.dryRun(ctx, batch)
			if err != nil {
				return nil, err
			}
			planned = append(planned, p...)
		} else if err := c.work(ctx, batch); err != nil {
			return nil, err
		}
		b.done += n
	}
	return planned, ctx.Err()
}
