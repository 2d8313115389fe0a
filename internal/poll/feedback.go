package poll

import (
	"context"

	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// FeedbackInput is implemented by an Input that can write feedback on its
// items (package feedback) through its own connection: its platform
// (event.SystemJira, SystemGitHub or SystemGitLab) and the writer.
type FeedbackInput interface {
	Feedback() (system string, w feedback.Writer)
}

// notifier is in's feedback notifier, built once per input, or nil when
// the input writes none.
func (c *Controller) notifier(in Input) *feedback.Notifier {
	if n, ok := c.notifiers[in]; ok {
		return n
	}
	var n *feedback.Notifier
	if fi, ok := in.(FeedbackInput); ok && !c.o.DryRun {
		system, w := fi.Feedback()
		n = feedback.New(feedback.Options{Writer: w, System: system, Harnesses: c.reg,
			Metrics: feedback.NewMetrics(c.o.Output.Metrics), Log: c.o.Log})
	}
	if c.notifiers == nil {
		c.notifiers = map[Input]*feedback.Notifier{}
	}
	c.notifiers[in] = n
	return n
}

// started records run r of p as started, for the acknowledgment after the
// cycle's checkpoints (acknowledge). Plan printers start nothing.
func (c *cycle) started(p itemPlan, r plan.Run) {
	if _, printer := c.o.Output.(Flusher); printer || c.o.Feedback == nil {
		return
	}
	c.acks = append(c.acks, feedback.Started{Harness: r.Harness, Event: r.Event, At: p.changeAt(r.Harness)})
}

// acknowledge writes the acknowledgments of the runs started, after the
// checkpoints, so that it delays neither a dispatch nor a checkpoint.
// Exactly once: a change is dispatched once (the delivery contract), and
// the platforms' idempotent answers cover a second sight of it.
func (c *cycle) acknowledge(ctx context.Context) {
	c.o.Feedback.Acknowledge(ctx, c.acks)
	c.acks = nil
}

// unhonoured says on the item that the quarantined change ps was given
// up on, once the record is written (a later cycle skips the change, and
// the comment's marker keeps a repeated quarantine from repeating it).
func (c *cycle) unhonoured(ctx context.Context, it *Item, ps Poison) {
	c.o.Feedback.Unhonoured(ctx, feedback.Notice{Item: it.ID, Harness: ps.Harness, Change: ps.Change, At: ps.At,
		Reason: ps.Reason, Event: ps.Event})
}
