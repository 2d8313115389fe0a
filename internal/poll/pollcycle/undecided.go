package pollcycle

import (
	"context"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// noteUndecided records the harnesses of errs that could not decide
// change c, unless they already handled it.
func (p *itemPlan) noteUndecided(c poll.Change, errs []poll.TriggerError, st *poll.CycleStats) {
	for _, te := range errs {
		if !c.Pos().After(p.it.Base.PosOf(te.Harness)) {
			continue
		}
		st.TriggerErrors++
		if p.undecided == nil {
			p.undecided = map[string][]poll.Poison{}
		}
		reason := "trigger could not decide: " + errText(te.Err)
		p.undecided[te.Harness] = append(p.undecided[te.Harness],
			poll.Poison{Harness: te.Harness, Change: poll.ChangeID(c.Event, c.At), At: c.At, Reason: reason})
	}
}

func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}

// holdUndecided counts one more failed cycle on each harness of p that
// could not decide a change, and holds the harness (drops its runs, keeps
// its position) until MaxDispatchAttempts; then it quarantines the
// undecided changes and lets the harness's runs go.
func (c *cycle) holdUndecided(ctx context.Context, p *itemPlan) {
	q := c.caps.Quarantine
	for h, ps := range p.undecided {
		if q != nil && c.attemptsOf(ctx, q, p, ps[0]) >= poll.MaxDispatchAttempts && c.quarantineAll(ctx, q, p, ps) {
			continue
		}
		p.drop(h)
		if p.held == nil {
			p.held = map[string]bool{}
		}
		p.held[h] = true
		c.log.Error("trigger could not decide a change; the harness is held and the next cycle retries",
			"item", p.it.ID, "harness", h, "change", ps[0].Change, "reason", ps[0].Reason)
	}
}

// attemptsOf counts the failure on the item and returns how many
// consecutive cycles failed on it (0 when the count could not be written).
func (c *cycle) attemptsOf(ctx context.Context, q poll.Quarantiner, p *itemPlan, ps poll.Poison) int {
	n, err := q.Failed(ctx, p.it, ps)
	if err != nil {
		c.log.Error("could not count the undecided change on the item", "item", p.it.ID, "harness", ps.Harness, "error", err.Error())
		return 0
	}
	return n
}

// quarantineAll records every change of ps; it reports whether all were
// recorded (else the harness stays held and a later cycle tries again).
func (c *cycle) quarantineAll(ctx context.Context, q poll.Quarantiner, p *itemPlan, ps []poll.Poison) bool {
	ok := true
	for _, x := range ps {
		ok = c.quarantine(ctx, q, p.it, x, poll.MaxDispatchAttempts) && ok
	}
	return ok
}

// drop removes harness h's run from p.
func (p *itemPlan) drop(h string) {
	var runs = p.runs[:0:0]
	var pos []changepos.Pos
	for i, r := range p.runs {
		if r.Harness != h {
			runs = append(runs, r)
			pos = append(pos, p.pos[i])
		}
	}
	p.runs, p.pos = runs, pos
}

// failHeld marks p's held harnesses failed in o: their checkpoint
// positions are kept, so the next cycle offers their changes again.
func (o *outcome) failHeld(p itemPlan) {
	for h := range p.held {
		if o.failed == nil {
			o.failed = map[string]bool{}
		}
		o.failed[h] = true
	}
}
