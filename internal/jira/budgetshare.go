package jira

import "time"

// budgetShare estimates which share of a site's rate budget this client
// spends when several clients (pollers on the same account) spend it: the
// headers report the budget everyone left, so between two of our calls
// the others' calls show as points we did not spend. Within one budget
// window (one X-RateLimit-Reset), the points spent by all are Limit minus
// the lowest Remaining seen; our share is our calls over that. A window's
// share is blended into the estimate carried to the next window, which
// starts at 1 (alone) until a window says otherwise.
type budgetShare struct {
	reset  time.Time // the window being counted
	mine   int       // our calls answered in it
	minRem int       // lowest Remaining seen in it
	limit  int
	prior  float64 // estimate from the windows before (0: none yet)
}

// minShareSample is how many points a window must show spent before its
// own ratio replaces the carried estimate.
const minShareSample = 4

// minShare bounds the estimate: a client never plans for less than a
// twentieth of the budget, whatever the noise.
const minShare = 0.05

// observe counts one of our answered calls in the window ending at reset
// and returns the current estimate of our share, in [minShare, 1].
func (s *budgetShare) observe(limit, remaining int, reset time.Time) float64 {
	if reset.Before(s.reset) { // a late answer from a window already over
		return s.estimate()
	}
	if !reset.Equal(s.reset) {
		if w, ok := s.window(); ok {
			s.prior = blend(s.prior, w)
		}
		s.reset, s.mine, s.minRem, s.limit = reset, 0, remaining, limit
	}
	s.mine++
	s.minRem = min(s.minRem, remaining)
	return s.estimate()
}

// estimate is the current window's share blended into the carried one,
// or the carried one while the window is no sample yet (1 with none).
func (s *budgetShare) estimate() float64 {
	if w, ok := s.window(); ok {
		return clampShare(blend(s.prior, w))
	}
	if s.prior == 0 {
		return 1
	}
	return clampShare(s.prior)
}

// window is the share the current window shows, once it is a sample.
func (s *budgetShare) window() (float64, bool) {
	spent := s.limit - s.minRem
	if s.limit <= 0 || spent < minShareSample {
		return 0, false
	}
	return min(float64(s.mine)/float64(spent), 1), true
}

// blend weighs the newest window's share as much as all before it.
func blend(prior, w float64) float64 {
	if prior == 0 {
		return w
	}
	return (prior + w) / 2
}

func clampShare(x float64) float64 { return min(max(x, minShare), 1) }
