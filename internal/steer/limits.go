package steer

import "time"

// DefaultInterval is the discovery cadence while the agent runs (the
// harness's `steer:` key and its defaults: harness.Steer).
const DefaultInterval = 30 * time.Second

// Limits bound one run's steering: never more than Max follow-ups
// offered, and none once less than MinTimeLeft is left before Deadline
// (the run's timeout, which steering never extends). A follow-up not
// offered stays a pending run, as without steering.
type Limits struct {
	Max         int
	MinTimeLeft time.Duration
	Deadline    time.Time // zero: no timeout
}

// Allow reports whether one more follow-up may be offered at now, after
// offered ones, and why not.
func (l Limits) Allow(offered int, now time.Time) (bool, string) {
	if offered >= l.Max {
		return false, "steer.max reached"
	}
	if !l.Deadline.IsZero() && l.Deadline.Sub(now) < l.MinTimeLeft {
		return false, "less than steer.min_time_left before run.timeout"
	}
	return true, ""
}
