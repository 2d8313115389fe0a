package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
)

// DefaultCycleTimeout bounds a single `fullsend poll` cycle (no --watch)
// when neither --cycle-timeout nor poll.cycle_timeout says otherwise: below
// the five minutes of the shortest schedule GitHub Actions runs.
const DefaultCycleTimeout = 4 * time.Minute

// WatchCycleShare is the share of --interval a watch cycle may take by
// default, so that it ends before the next one is due; never less than
// MinWatchCycleTimeout, since a watch starts its next cycle only after
// this one ended and the wait (a very short interval only delays it).
const (
	WatchCycleShare      = 0.8
	MinWatchCycleTimeout = 10 * time.Second
)

// errCycleDeadline is the cause of a cycle context whose deadline passed.
var errCycleDeadline = errors.New("poll cycle deadline")

// CycleTimeout is the deadline of one cycle: the option, else
// poll.cycle_timeout, else 80% of the interval (at least
// MinWatchCycleTimeout) with Watch and DefaultCycleTimeout without.
func (c *Controller) CycleTimeout() time.Duration {
	switch {
	case c.o.CycleTimeout > 0:
		return c.o.CycleTimeout
	case c.cfg.Poll.CycleTimeout > 0:
		return c.cfg.Poll.CycleTimeout
	case c.o.Watch:
		return max(time.Duration(float64(c.o.Interval)*WatchCycleShare), MinWatchCycleTimeout)
	}
	return DefaultCycleTimeout
}

// deadline turns a cycle that its deadline cut short into a failure. The
// cycle itself stopped dispatching and rolled back the locks it held
// without runs (cycle.Run, on a cancelled context), as it does for a signal.
func (c *Controller) deadline(ctx context.Context, err error) error {
	if !errors.Is(context.Cause(ctx), errCycleDeadline) {
		return err
	}
	return errors.Join(err, c.deadlineErr())
}

func (c *Controller) deadlineErr() error {
	return fmt.Errorf("poll cycle exceeded its deadline of %s (poll.cycle_timeout, --cycle-timeout): unfinished items were released for the next cycle", c.CycleTimeout())
}

// observer is the Observer of one cycle whose context is ctx: a cycle its
// deadline interrupted is reported as failed.
func (c *Controller) observer(ctx context.Context) poll.Observer {
	return func(s poll.CycleStats) {
		if s.Interrupted && s.Error == "" && errors.Is(context.Cause(ctx), errCycleDeadline) {
			s.Error = c.deadlineErr().Error()
		}
		if c.o.Observer != nil {
			c.o.Observer(s)
		}
	}
}

// observeStartFailure reports a cycle that failed before it could start
// (the engine could not be built) to the Observer, once per input, so that
// metrics and /healthz show a bad start.
func (c *Controller) observeStartFailure(err error) {
	c.o.Log.Error("poll cycle could not start", "error", err.Error())
	if c.o.Observer == nil {
		return
	}
	for _, in := range c.inputs {
		c.o.Observer(poll.CycleStats{Driver: in.PollDriver().Name(), Error: err.Error()})
	}
}
