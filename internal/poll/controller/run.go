package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// Poll is `fullsend poll`: it builds a Controller and runs it.
func Poll(ctx context.Context, o Options) error {
	c, err := New(ctx, o)
	if err != nil {
		return err
	}
	defer c.ReleaseState()
	return c.Run(ctx)
}

// Run runs one cycle of every selected input, or with Watch cycles until
// ctx is cancelled. A cycle that cannot even start (the tracker
// unreachable while the tool's own account is read) is a failing cycle
// like any other: with Watch it backs off and tries again; only a
// configuration error (config.Invalid, refused credentials among them)
// ends the watch.
func (c *Controller) Run(ctx context.Context) error {
	name := c.OutputName()
	// A plan printer writes its document when closed: each cycle gets its
	// own, so that every cycle prints one array ([] when empty) as it ends
	// instead of all plans at exit.
	perCycle := drivername.PrintsPlan(name)
	var out output.Driver
	var err error
	if !perCycle {
		if out, err = c.NewOutput(name); err != nil {
			return err
		}
	}
	var eng *core.Engine
	cycle := func(ctx context.Context) (err error) {
		ctx, cancel := context.WithTimeoutCause(ctx, c.CycleTimeout(), errCycleDeadline)
		defer cancel()
		defer func() { err = c.deadline(ctx, err) }()
		if eng == nil {
			if eng, err = c.engine(ctx); err != nil {
				c.observeStartFailure(err)
				return err
			}
		}
		out := out
		if perCycle {
			if out, err = c.NewOutput(name); err != nil {
				return err
			}
			defer func() {
				if cerr := closeOutput(context.WithoutCancel(ctx), out); err == nil {
					err = cerr
				}
			}()
		}
		return c.cycle(ctx, eng, out)
	}
	stopRefresh := c.refreshQueued(ctx, out)
	if c.o.Watch {
		err = Watch(ctx, WatchOptions{Interval: c.o.Interval, Log: c.o.Log, Sleep: c.o.Sleep, Fatal: config.IsInvalid}, cycle)
	} else {
		err = cycle(ctx)
	}
	if !perCycle {
		// Runs handed to an in-process executor carry changes already
		// checkpointed in lastCheck: finish them all, even after a stop
		// signal, rather than drop them (docs/local.md, Shutdown).
		if cerr := closeOutput(context.WithoutCancel(ctx), out); err == nil {
			err = cerr
		}
	}
	stopRefresh()
	return StopErr(err)
}

// engine builds the decision engine, with the tool's own accounts on every
// input as bots (loop guard) and the per-scope breaker, which a poller
// always applies.
func (c *Controller) engine(ctx context.Context) (*core.Engine, error) {
	var bots []string
	for _, in := range c.inputs {
		id, err := in.Account(ctx)
		if err != nil {
			return nil, err
		}
		bots = append(bots, id)
	}
	eng, err := core.New(core.Options{Config: c.cfg, Harnesses: c.reg, Log: c.o.Log,
		Breaker: core.NewBreaker(c.cfg.Limits.RunsPerScopePerHour), BotIDs: bots})
	return eng, config.Invalid(err)
}

// cycle runs one cycle of every input; the kill switch stops it before
// anything is read or locked.
func (c *Controller) cycle(ctx context.Context, eng *core.Engine, out output.Driver) error {
	if halted, why := eng.Halted(); halted {
		c.o.Log.Warn(why + ": no poll cycle")
		return nil
	}
	var planned []plan.Run
	var errs []error
	for _, in := range c.inputs {
		s := in.Settings()
		res, err := pollcycle.Run(ctx, pollcycle.Options{
			Driver: in.PollDriver(), Core: poll.CoreDecider(eng), Output: out, Validate: (*event.Event).Validate,
			N: s.Lock.N, Requests: s.RequestsPerCycle, Concurrency: s.Concurrency, JitterMin: s.Lock.JitterMin, JitterMax: s.Lock.JitterMax,
			DryRun: c.o.DryRun, Log: c.o.Log, Observer: c.observer(ctx), IntentSettle: intentSettle(s.Lock.StaleThreshold),
			ClaimWait: polllock.ClaimWaitFor(s.Lock.StaleThreshold), Feedback: c.notifier(in), Schedule: c.schedule(eng, in),
		})
		planned = append(planned, res.Planned...)
		if ss := in.InputCapabilities().State; ss != nil && !c.o.DryRun {
			ss.SaveState()
		}
		if err != nil {
			errs = append(errs, err)
		} else if n := res.Stats.DispatchesFailed; n > 0 && n == res.Stats.DispatchesRefused {
			errs = append(errs, fmt.Errorf("%s: %w (%s); the next cycle dispatches them again", in.PollDriver().Name(), ErrDispatchesRefused, english.Count(n, "dispatch")))
		} else if n > 0 {
			errs = append(errs, fmt.Errorf("%s: %s failed; the next cycle retries them", in.PollDriver().Name(), english.Count(n, "dispatch")))
		}
	}
	if c.o.DryRun {
		for _, r := range out.Dispatch(ctx, planned) {
			if r.Err != nil {
				errs = append(errs, r.Err)
			}
		}
	}
	return errors.Join(errs...)
}

// closeOutput finishes drivers that buffer or run work in process.
func closeOutput(ctx context.Context, d output.Driver) error {
	if f, ok := d.(output.Finisher); ok {
		return f.Close(ctx)
	}
	return nil
}

// intentSettle bounds how long an interrupted dispatch is left to settle:
// pollcycle.DefaultIntentSettle, but never longer than the lock's stale threshold, so
// a poller configured to take items over quickly also recovers quickly.
func intentSettle(stale time.Duration) time.Duration {
	if stale > 0 && stale < pollcycle.DefaultIntentSettle {
		return stale
	}
	return pollcycle.DefaultIntentSettle
}
