package poll

import (
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Refunder is the Decider's budget half: its Admit may take a slot of a
// budget (the per-scope circuit breaker) for each admitted run, and the
// cycle hands back the runs whose dispatch failed: only runs that started
// count against the budget, so a failing output never uses it up. A
// Decider without a budget refunds nothing.
type Refunder interface {
	Refund(runs []plan.Run)
}
