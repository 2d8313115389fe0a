package jira

import (
	"time"

	"golang.org/x/time/rate"
)

// PaceMemory is how long a ceiling another client of the site published
// (SharedRate) is worth adopting: older, it says little about the burst
// limit now, and a client learns it again from its own 429s.
const PaceMemory = time.Minute

// SharedRate is what the client publishes for other clients of the site:
// its AIMD ceiling in calls per second, once a 429 was seen (ok false
// before: the configured rate says nothing about the site's limit).
func (c *Client) SharedRate() (r float64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.aimd.learned() {
		return 0, false
	}
	return c.aimd.Rate(), true
}

// RateLowered reports whether the client's ceiling is below the
// configured rate (a 429, or an adopted rate, lowered it and it has not
// grown back yet).
func (c *Client) RateLowered() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.aimd.Rate() < c.aimd.max
}

// AdoptRate lowers the client's ceiling to r, a ceiling another client
// of the site held age ago (grown by one step per clean window since, as
// its own would have), and sends one call at a time from then on, unless
// its own ceiling is already as low, or the ceiling is older than
// PaceMemory (or from the future). It never raises the ceiling: a shared
// rate is a hint, and a client's own 429s stay the last word.
func (c *Client) AdoptRate(r float64, age time.Duration) {
	if !(r > 0) || age < 0 || age >= PaceMemory {
		return
	}
	now := c.opts.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	grown := r + c.aimd.step*float64(age/c.aimd.window)
	if grown >= c.aimd.Rate() {
		return
	}
	c.aimd.restore(r, true, age, now)
	if c.slowUntil.IsZero() || rate.Limit(c.aimd.Rate()) < c.limiter.Limit() {
		c.limiter.SetLimitAt(now, rate.Limit(c.aimd.Rate()))
		c.limiter.SetBurstAt(now, c.aimd.burst(c.opts.Burst))
	}
}
