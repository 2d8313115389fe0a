package jira

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// Rate-limit headers of Jira Cloud (see docs/jira.md "Rate limits").
const (
	hdrLimit     = "X-RateLimit-Limit"
	hdrRemaining = "X-RateLimit-Remaining"
	hdrReset     = "X-RateLimit-Reset"
	hdrNearLimit = "X-RateLimit-NearLimit"
	hdrReason    = "RateLimit-Reason"
)

// nearLimitSlowdown is how long the limiter runs at a quarter of its rate
// after Jira signals pressure without saying when its budget resets.
const nearLimitSlowdown = 30 * time.Second

// Budget is the rate-limit budget Jira last reported: Remaining of Limit
// points until Reset. Known is false until a response carried
// X-RateLimit-Remaining.
type Budget struct {
	Known     bool
	Limit     int // 0 when Jira did not send X-RateLimit-Limit
	Remaining int
	Reset     time.Time // zero when Jira did not send X-RateLimit-Reset
}

// Budget returns the last reported rate-limit budget.
func (c *Client) Budget() Budget {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.budget
}

// parseReset reads X-RateLimit-Reset: an ISO 8601 timestamp, which Jira
// documents as yyyy-MM-ddTHH:mmZ; seconds and fractions are accepted too.
func parseReset(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// observeRateHeaders records the budget a response reports and paces the
// client by it, before Jira refuses anything: the limiter's rate becomes
// our share of the remaining points spread evenly until X-RateLimit-Reset
// (one call at a time), whenever that is below the configured rate. Our
// share is estimated from the headers (budgetShare): pollers on one
// account split its budget without talking to each other. With no points
// left every call waits until the reset. A 429 is retried after
// Retry-After (or the reset) by the retry policy. Without a usable reset,
// near-limit signals (X-RateLimit-NearLimit: true, or fewer than a tenth
// of the limit remaining) and 429s run the limiter at a quarter of its
// rate for nearLimitSlowdown.
func (c *Client) observeRateHeaders(status int, h http.Header) {
	now := c.opts.Now()
	near := strings.EqualFold(strings.TrimSpace(h.Get(hdrNearLimit)), "true")
	reset, hasReset := parseReset(h.Get(hdrReset))
	reset = reset.Add(-c.offset()) // Jira's time onto the host's clock
	hasReset = hasReset && reset.After(now)
	rem, rerr := strconv.Atoi(strings.TrimSpace(h.Get(hdrRemaining)))
	limit, lerr := strconv.Atoi(strings.TrimSpace(h.Get(hdrLimit)))
	share := 1.0
	if rerr == nil {
		low := (lerr == nil && limit > 0 && rem*10 < limit) || (lerr != nil && rem < 5)
		near = near || low
		b := Budget{Known: true, Remaining: max(rem, 0), Limit: max(limit, 0)}
		if hasReset {
			b.Reset = reset
		}
		c.mu.Lock()
		c.budget = b
		if hasReset && lerr == nil {
			share = c.share.observe(limit, rem, reset)
		}
		c.mu.Unlock()
	}
	quarter := rate.Limit(c.rps / 4)
	switch {
	case rerr == nil && rem <= 0 && hasReset:
		c.pauseUntil(reset)
	case status == http.StatusTooManyRequests:
		// the call itself waits Retry-After (or the reset) to retry
		c.slowDown(now, quarter, c.opts.Burst, now.Add(nearLimitSlowdown))
	case rerr == nil && hasReset:
		if perSec := share * float64(rem) / reset.Sub(now).Seconds(); perSec < c.rps {
			c.slowDown(now, rate.Limit(perSec), 1, reset)
		}
	case near:
		c.slowDown(now, quarter, c.opts.Burst, now.Add(nearLimitSlowdown))
	}
}

// pauseUntil makes every call wait until t.
func (c *Client) pauseUntil(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.paused) {
		c.paused = t
	}
	if t.After(c.slowUntil) {
		c.slowUntil = t
	}
}

// slowDown runs the limiter at r with burst until until.
func (c *Client) slowDown(now time.Time, r rate.Limit, burst int, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if until.After(c.slowUntil) {
		c.slowUntil = until
	}
	c.limiter.SetLimitAt(now, r)
	c.limiter.SetBurstAt(now, burst)
}

func (c *Client) restoreRate(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.slowUntil.IsZero() && !now.Before(c.slowUntil) {
		c.slowUntil = time.Time{}
		c.limiter.SetLimitAt(now, rate.Limit(c.rps))
		c.limiter.SetBurstAt(now, c.opts.Burst)
	}
}

// Slowed reports whether the client currently runs below its configured
// rate because Jira signalled pressure.
func (c *Client) Slowed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.slowUntil.IsZero()
}

// pacer is the client's limiter as the HTTP stack sees it: every attempt
// waits for it.
type pacer struct{ c *Client }

func (p pacer) Wait(ctx context.Context) error { return p.c.waitLimiter(ctx) }

// waitLimiter waits out a pause, then for the limiter, on the client's
// clock (Options.Now and Options.Sleep).
func (c *Client) waitLimiter(ctx context.Context) error {
	now := c.opts.Now()
	c.mu.Lock()
	pause := c.paused.Sub(now)
	c.mu.Unlock()
	if pause > 0 {
		c.countWait()
		if err := c.opts.Sleep(ctx, pause); err != nil {
			return err
		}
		now = c.opts.Now()
	}
	c.restoreRate(now)
	r := c.limiter.ReserveN(now, 1)
	if !r.OK() {
		return errors.New("rate limiter cannot grant a request")
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	c.countWait()
	if err := c.opts.Sleep(ctx, d); err != nil {
		r.CancelAt(c.opts.Now())
		return err
	}
	return nil
}
