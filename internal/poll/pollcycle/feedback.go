package pollcycle

import (
	"context"

	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// started records run r of p as started, for the acknowledgment after the
// cycle's checkpoints (acknowledge). Plan printers start nothing.
func (c *cycle) started(p itemPlan, r plan.Run) {
	if c.out.flusher != nil || c.o.Feedback == nil {
		return
	}
	c.fbMu.Lock()
	defer c.fbMu.Unlock()
	c.acks = append(c.acks, feedback.Started{Harness: r.Harness, Event: r.Event, At: p.changeAt(r.Harness)})
}

// acknowledge writes the feedback of the cycle after the checkpoints, so
// that it delays neither a dispatch nor a checkpoint: the acknowledgments
// of the runs started, then the comments on the changes quarantined.
// Exactly once: a change is dispatched once (the delivery contract), and
// the platforms' idempotent answers cover a second sight of it.
func (c *cycle) acknowledge(ctx context.Context) {
	c.fbMu.Lock()
	acks, notices := c.acks, c.notices
	c.acks, c.notices = nil, nil
	c.fbMu.Unlock()
	c.o.Feedback.Acknowledge(ctx, acks)
	for _, no := range notices {
		c.o.Feedback.Unhonoured(ctx, no)
	}
}

// unhonoured records that the quarantined change ps of it is to be said
// on the item (acknowledge writes it), once its record is written: a
// later cycle skips the change, and the comment's marker keeps a repeated
// quarantine from repeating it. Safe for concurrent use.
func (c *cycle) unhonoured(_ context.Context, it *poll.Item, ps poll.Poison) {
	if c.o.Feedback == nil {
		return
	}
	c.fbMu.Lock()
	defer c.fbMu.Unlock()
	c.notices = append(c.notices, feedback.Notice{Item: it.ID, Harness: ps.Harness, Change: ps.Change, At: ps.At,
		Reason: ps.Reason, Event: ps.Event})
}
