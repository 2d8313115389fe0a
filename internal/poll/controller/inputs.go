package controller

import (
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// notifier is in's feedback notifier, built once per input, or nil when
// the input writes none.
func (c *Controller) notifier(in poll.Input) *feedback.Notifier {
	if n, ok := c.notifiers[in]; ok {
		return n
	}
	var n *feedback.Notifier
	if fi := in.InputCapabilities().Feedback; fi != nil && !c.o.DryRun {
		system, w := fi.Feedback()
		n = feedback.New(feedback.Options{Writer: w, System: system, Harnesses: c.reg,
			Metrics: feedback.NewMetrics(c.o.Output.Metrics), Log: c.o.Log})
	}
	if c.notifiers == nil {
		c.notifiers = map[poll.Input]*feedback.Notifier{}
	}
	c.notifiers[in] = n
	return n
}

// schedule is the scheduled discovery of one input's cycles: nil unless
// the policy allows it, an enabled harness declares the driver's entity
// system among its sources, and the driver resolves entities and keeps
// receipts (jira-poll, github-poll, gitlab-poll; without receipts retries could not
// be bounded).
func (c *Controller) schedule(eng *core.Engine, in poll.Input) *poll.Schedule {
	caps := in.PollDriver().Capabilities()
	er := caps.Entities
	if er == nil || caps.Scheduled == nil {
		return nil
	}
	if !c.cfg.Authorization.AllowsScheduled() || !eng.DecidesEntities(er.EntitySystem()) {
		return nil
	}
	if c.cadence == nil {
		c.cadence = &reconcile.Cadence{}
	}
	cadence, id := c.cadence, c.pollerID
	if k := caps.Cadence; k != nil {
		cadence = k.Cadence()
	}
	if p := caps.Identity; p != nil && p.PollerID() != "" {
		id = p.PollerID()
	}
	return &poll.Schedule{Decider: poll.CoreScheduledDecider(eng), Policy: config.ScheduledAllow, Invoker: in.PollDriver().Name() + ":" + id,
		Forge: c.cfg.Forge, Cadence: cadence, Notify: c.o.OnQuarantine}
}
