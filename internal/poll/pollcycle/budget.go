package pollcycle

import (
	"context"
	"slices"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/budget"
)

// The API budget of a cycle of a driver without locks (NoLocks:
// github-poll, gitlab-poll): package budget's rule, over the driver's
// Usage and RunCost for every run the cycle asked the output to start,
// under Options.Requests. The items left are the longest-waiting ones of
// the next cycle.
const (
	// DefaultRequests is Options.Requests when zero (config
	// requests_per_cycle).
	DefaultRequests = config.DefaultRequestsPerCycle
	// RunCost is what the budget counts for each run the output is asked
	// to start (budget.RunCost).
	RunCost = budget.RunCost
	// RateReserve is the share of the platform's rate limit a cycle
	// leaves unspent (budget.RateReserve).
	RateReserve = budget.RateReserve
)

// budgetUsage is u as package budget reads it.
func budgetUsage(u poll.Usage) budget.Usage {
	return budget.Usage{Calls: u.Calls, Rate: budget.Rate(u.RateBudget)}
}

// budgeted works on the eligible items of a driver without locks while
// the budget allows, longest-waiting first (ByWait), in batches: every
// item is detected and decided before anything is selected, so an item
// whose changes start nothing (an outsider's, a bot's, a comment with no
// command) costs its detection and takes nothing from the others. The
// items left wait for the next cycle (CycleStats.ItemsDeferred).
func (c *cycle) budgeted(ctx context.Context, eligible []*poll.Item) ([]plan.Run, error) {
	items := slices.Clone(eligible)
	slices.SortStableFunc(items, poll.ByWait)
	b := budget.Budget{Requests: c.o.Requests, Begin: budgetUsage(c.begin), Work: budgetUsage(c.o.Driver.Usage())}
	var planned []plan.Run
	if c.o.DryRun {
		planned = []plan.Run{}
	}
	for len(items) > 0 && ctx.Err() == nil {
		u := c.o.Driver.Usage()
		runs := c.st.DispatchesScheduled + c.st.DispatchesFailed
		n := min(b.Allows(budgetUsage(u), runs, c.o.Now()), len(items))
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
		b.Done += n
	}
	return planned, ctx.Err()
}
