package periodic

import "time"

// MaxBackoffFactor caps the wait after failing rounds at this many
// intervals.
const MaxBackoffFactor = 10

// Backoff is the wait after failures consecutive failing rounds:
// interval × 2^failures, capped at MaxBackoffFactor × interval.
func Backoff(interval time.Duration, failures int) time.Duration {
	wait := interval
	for i := 0; i < failures && wait < MaxBackoffFactor*interval; i++ {
		wait *= 2
	}
	return min(wait, MaxBackoffFactor*interval)
}
