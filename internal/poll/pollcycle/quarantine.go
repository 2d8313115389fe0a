package pollcycle

import (
	"context"
	"errors"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// giveUp handles a failed dispatch of run r for p's item. Inputs that can
// never fit the platform's limit (plan.ErrInputsTooLarge) are quarantined
// at once. Otherwise the attempt is counted on the item only while the
// output is otherwise healthy (it started another run in the same call):
// an output that is down for everyone quarantines nothing. At
// MaxDispatchAttempts the change is quarantined and giveUp reports true:
// the caller then treats the harness as handled.
func (c *cycle) giveUp(ctx context.Context, p itemPlan, r plan.Run, err error, healthy bool) bool {
	q := c.caps.Quarantine
	if q == nil {
		return false
	}
	at := p.changeAt(r.Harness)
	ps := poll.Poison{Harness: r.Harness, Change: poll.ChangeID(r.Event, at), At: at, Reason: err.Error(), Event: r.Event}
	if errors.Is(err, plan.ErrInputsTooLarge) {
		return c.quarantine(ctx, q, p.it, ps, 1) // no later cycle can make them fit
	}
	if !healthy {
		return false
	}
	n, ferr := q.Failed(ctx, p.it, ps)
	if ferr != nil {
		c.log.Error("could not count the failed dispatch on the item", "item", p.it.ID, "harness", r.Harness, "error", ferr.Error())
		return false
	}
	if n < poll.MaxDispatchAttempts {
		return false
	}
	return c.quarantine(ctx, q, p.it, ps, n)
}

// quarantineInvalid records the invalid events of p (nothing in a dry run).
func (c *cycle) quarantineInvalid(ctx context.Context, p itemPlan) {
	q := c.caps.Quarantine
	for _, ps := range p.poison {
		if q == nil {
			c.st.ChangesQuarantined++
			c.log.Error("change quarantined: the driver keeps no record; lastCheck moves past it",
				"item", p.it.ID, "change", ps.Change, "reason", ps.Reason)
			continue
		}
		c.quarantine(ctx, q, p.it, ps, 0)
	}
}

// quarantine writes ps on it, logs and counts it; it reports whether the
// record was written.
func (c *cycle) quarantine(ctx context.Context, q poll.Quarantiner, it *poll.Item, ps poll.Poison, attempts int) bool {
	if err := q.Quarantine(ctx, it, ps, attempts); err != nil {
		c.st.ItemsFailed++
		c.log.Error("could not record the quarantined change on the item", "item", it.ID, "change", ps.Change,
			"harness", ps.Harness, "reason", ps.Reason, "error", err.Error())
		return false
	}
	c.st.ChangesQuarantined++
	c.log.Error("change quarantined: recorded on the item; lastCheck moves past it", "item", it.ID, "change", ps.Change,
		"harness", ps.Harness, "attempts", attempts, "reason", ps.Reason)
	c.unhonoured(ctx, it, ps)
	return true
}

// changeAt is when the change behind harness h's run happened.
func (p itemPlan) changeAt(h string) time.Time {
	for i, r := range p.runs {
		if r.Harness == h && i < len(p.pos) {
			return p.pos[i].At
		}
	}
	return p.it.Cutoff
}
