package poll

import (
	"context"
	"errors"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// MaxDispatchAttempts is how many cycles may fail to dispatch the same
// change for a harness, while the output started other runs, before the
// change is quarantined.
const MaxDispatchAttempts = 3

// Poison is a change the cycle gives up on: it is recorded on its item,
// logged and counted, and the checkpoint moves past it.
type Poison struct {
	Harness string    // empty for an invalid event (no harness saw it)
	Change  string    // the change's id (ChangeID)
	At      time.Time // when the change happened
	Reason  string
	// Event is the change's event when it had a valid one (for the
	// feedback on its item); nil for an invalid event.
	Event *event.Event
}

// Quarantiner is the capability (Capabilities.Quarantine) of drivers that keep a quarantine record on
// their items. Without it, failed dispatches are retried every cycle and
// invalid events are only logged and counted.
type Quarantiner interface {
	// Failed records one more failed dispatch of p.Change for p.Harness
	// and returns how many consecutive cycles failed on it.
	Failed(ctx context.Context, it *Item, p Poison) (attempts int, err error)
	// Quarantine records p on the item.
	Quarantine(ctx context.Context, it *Item, p Poison, attempts int) error
}

// ChangeID names a change in logs and quarantine records: the comment id
// for comments, else the source type, transition and time.
func ChangeID(ev *event.Event, at time.Time) string {
	if c := ev.Transition.Comment; c != nil && c.ID != "" {
		return "comment/" + c.ID
	}
	return ev.Source.RawType + "/" + ev.Transition.Kind + "@" + at.UTC().Format(time.RFC3339Nano)
}

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
	ps := Poison{Harness: r.Harness, Change: ChangeID(r.Event, at), At: at, Reason: err.Error(), Event: r.Event}
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
	if n < MaxDispatchAttempts {
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
func (c *cycle) quarantine(ctx context.Context, q Quarantiner, it *Item, ps Poison, attempts int) bool {
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
