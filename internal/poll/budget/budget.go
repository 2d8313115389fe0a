// Package budget is the API budget rule of a poll cycle whose driver
// takes no locks (github-poll, gitlab-poll): how many more items the
// cycle may work on, from what it spent so far. Such a cycle holds
// nothing an item would wait for, so it takes every due item,
// longest-waiting first, while the budget lasts:
//   - the cycle's requests: its driver's (Usage.Calls, discovery included)
//     and RunCost for every run it asked the output to start, under
//     Budget.Requests;
//   - the platform's remaining rate-limit budget as the driver's client
//     last saw it (Usage.Rate), less what the cycle spent since, above the
//     reserve left to the token's other users (RateReserve).
//
// Pure: the caller measures and works.
package budget

import (
	"math"
	"time"
)

const (
	// RunCost is what the budget counts for each run the output is asked
	// to start: its dispatch and the settle read after it, the least a
	// forge output makes (its client is not the driver's, so its
	// requests are not in Usage.Calls).
	RunCost = 2
	// RateReserve is the share of the platform's rate limit a cycle
	// leaves unspent: it takes no more items once the remaining budget is
	// at or below it.
	RateReserve = 0.2
	// Batch is the most items worked on at once: each batch is detected,
	// decided and dispatched before the budget is asked about the next
	// one, from what the batches before it cost.
	Batch = 50
	// First is the first batch, which measures what an item costs (the
	// default of lock.n).
	First = 5
)

// Usage is what a driver spent, cumulatively: its requests, and the
// rate-limit budget its platform last reported.
type Usage struct {
	Calls int
	Rate  Rate
}

// Rate is a platform's rate-limit budget: Remaining of Limit until Reset;
// Known is false when the platform reported none.
type Rate struct {
	Known            bool
	Limit, Remaining int
	Reset            time.Time
}

// Budget is what a cycle may still spend.
type Budget struct {
	Requests int   // the most requests of the cycle
	Begin    Usage // at the cycle's start
	Work     Usage // when the first item's work began (after discovery)
	Done     int   // items worked on since
}

// Allows is how many more items the budget allows at usage u, after runs
// runs were handed to the output, at the platform's time now (0: none):
// First to begin with, then as many as the cost per item measured so far
// fits into what is left (at least one while anything is left, at most
// Batch). A rate budget whose reset time has passed says nothing of the
// new window and is not used.
func (b *Budget) Allows(u Usage, runs int, now time.Time) int {
	worked := u.Calls - b.Work.Calls + RunCost*runs // spent on the items
	left := float64(b.Requests - (b.Work.Calls - b.Begin.Calls) - worked)
	if left <= 0 {
		return 0
	}
	n := First
	if b.Done > 0 {
		n = fits(left, float64(worked)/float64(b.Done))
	}
	rb, w := u.Rate, b.Work.Rate
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
	if b.Done > 0 {
		n = min(n, fits(above, float64(platform)/float64(b.Done)))
	}
	return n
}

// fits is how many items of cost each fit into left: at least 1, at most
// Batch.
func fits(left, each float64) int {
	if each <= 0 {
		return Batch
	}
	return int(min(max(math.Floor(left/each), 1), Batch))
}
