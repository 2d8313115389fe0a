package pollcycle

import (
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// admit applies the core's breaker to runs (owner[k] is the index in plans
// of runs[k]'s item). Runs held back are deferred, never dropped: their
// harness keeps its checkpoint position on the item (marked in outs like a
// failed run), so a later cycle offers the change again once the window
// allows. It returns the admitted runs and their owners.
func (c *cycle) admit(plans []itemPlan, runs []plan.Run, owner []int, outs []outcome) ([]plan.Run, []int) {
	admitted, _ := c.o.Core.Admit(runs)
	var keptRuns []plan.Run
	var keptOwner []int
	j := 0
	for k, r := range runs {
		if j < len(admitted) && admitted[j].Key == r.Key && admitted[j].Harness == r.Harness {
			keptRuns = append(keptRuns, r)
			keptOwner = append(keptOwner, owner[k])
			j++
			continue
		}
		c.st.RunsRateLimited++
		o := &outs[owner[k]]
		if o.failed == nil {
			o.failed = map[string]bool{}
		}
		o.failed[r.Harness] = true
		c.log.Warn("run deferred by the circuit breaker; the change is kept and retried when the window allows",
			"item", plans[owner[k]].it.ID, "harness", r.Harness, "serialization_key", string(r.Key))
	}
	return keptRuns, keptOwner
}

// refund hands the runs whose dispatch failed back to the core's budget.
func (c *cycle) refund(failed []plan.Run) {
	if len(failed) > 0 {
		c.o.Core.Refund(failed)
	}
}
