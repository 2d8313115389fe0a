package jira

import "time"

// AIMD defaults: the rate is halved on a refusal, never below
// aimdFloorShare of the configured rate, and grows back by aimdStepShare
// of it per clean aimdWindow.
const (
	aimdWindow     = time.Second
	aimdFloorShare = 1.0 / 16
	aimdStepShare  = 1.0 / 40
)

// aimd is an additive-increase, multiplicative-decrease controller of a
// client's request rate, driven by the 429s themselves: it paces a client
// under a limit that no header announces (Jira's per-second burst limit
// leaves X-RateLimit-* alone).
//
// Contract (all times on the caller's clock; not safe for concurrent use,
// the client holds its lock):
//   - Rate starts at the configured rate max and never leaves [min, max].
//   - refused(now, wait) is a 429. It halves the rate (not below min) —
//     once per window: the 429s answered to calls already in flight when
//     the first came back count as one — and starts a new window at
//     now + wait (Retry-After, or 0): no increase before a whole window
//     has passed after the server's wait.
//   - ok(now) is a successful answer. When a whole window has passed
//     since the current one started without a refusal, the rate grows by
//     step (not above max) and the next window starts at now. It reports
//     whether the rate changed.
//   - learned reports whether a refusal was ever seen: from then on the
//     client sends one call at a time at the rate (burst 1: a burst is
//     what a burst limit refuses), even once the rate is back at max.
type aimd struct {
	max, min, step float64
	window         time.Duration
	rate           float64
	start          time.Time // start of the current window (zero: none)
	cut            time.Time // when the rate was last halved
	seen           bool
}

// newAIMD returns a controller at rate max with the package's defaults.
func newAIMD(max float64) *aimd {
	return &aimd{max: max, min: max * aimdFloorShare, step: max * aimdStepShare, window: aimdWindow, rate: max}
}

// Rate is the current rate in requests per second.
func (a *aimd) Rate() float64 { return a.rate }

// learned reports whether a refusal was ever seen.
func (a *aimd) learned() bool { return a.seen }

func (a *aimd) refused(now time.Time, wait time.Duration) {
	if !a.seen || now.Sub(a.cut) >= a.window {
		a.rate = max(a.rate/2, a.min)
		a.cut = now
	}
	a.seen = true
	if next := now.Add(max(wait, 0)); next.After(a.start) {
		a.start = next
	}
}

func (a *aimd) ok(now time.Time) bool {
	if a.rate >= a.max || a.start.IsZero() || now.Sub(a.start) < a.window {
		return false
	}
	a.rate = min(a.rate+a.step, a.max)
	a.start = now
	return true
}

// burst is the limiter burst for a configured burst: the configured one
// until a refusal was seen, then 1.
func (a *aimd) burst(configured int) int {
	if !a.seen {
		return configured
	}
	return 1
}
