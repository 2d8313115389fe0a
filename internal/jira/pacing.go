package jira

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/fullsend-dev/fullsend/internal/httpx"
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
// Retry-After (or the reset) by the retry policy; it also halves the
// client's ceiling (aimd: the burst limit moves no header), every call
// waits out its Retry-After, and successful windows raise the ceiling
// back to the configured rate step by step. Without a usable reset,
// near-limit signals (X-RateLimit-NearLimit: true, or fewer than a tenth
// of the limit remaining) run the limiter at a quarter of its ceiling
// for nearLimitSlowdown.
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
	if status == http.StatusTooManyRequests {
		c.refused(now, h)
	} else if status < 400 {
		c.succeeded(now)
	}
	ceiling, burst := c.ceiling()
	quarter := rate.Limit(ceiling / 4)
	switch {
	case rerr == nil && rem <= 0 && hasReset:
		c.pauseUntil(reset)
	case status == http.StatusTooManyRequests:
		// refused lowered the ceiling; the call itself waits Retry-After
		// (or the reset) to retry
	case rerr == nil && hasReset:
		if perSec := share * float64(rem) / reset.Sub(now).Seconds(); perSec < ceiling {
			c.slowDown(now, rate.Limit(perSec), 1, reset)
		}
	case near:
		c.slowDown(now, quarter, burst, now.Add(nearLimitSlowdown))
	}
}

// refused feeds a 429 to the AIMD ceiling, sets the limiter to it unless
// a header-driven slowdown holds it lower, and makes every call wait out
// the answer's Retry-After (up to MaxRetryAfter: a longer one fails the
// call, and must not stop the others).
func (c *Client) refused(now time.Time, h http.Header) {
	wait, ok := httpx.RetryAfter(h.Get("Retry-After"), c.siteNow())
	ok = ok && wait > 0 && wait <= c.opts.MaxRetryAfter
	c.mu.Lock()
	c.aimd.refused(now, wait)
	r, b := c.aimd.Rate(), c.aimd.burst(c.opts.Burst)
	if c.slowUntil.IsZero() || rate.Limit(r) < c.limiter.Limit() {
		c.limiter.SetLimitAt(now, rate.Limit(r))
		c.limiter.SetBurstAt(now, b)
	}
	c.mu.Unlock()
	if ok {
		c.pauseUntil(now.Add(wait))
	}
}

// succeeded feeds a successful answer to the AIMD ceiling and raises the
// limiter with it unless a header-driven slowdown holds it lower.
func (c *Client) succeeded(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.aimd.ok(now) && c.slowUntil.IsZero() {
		c.limiter.SetLimitAt(now, rate.Limit(c.aimd.Rate()))
		c.limiter.SetBurstAt(now, c.aimd.burst(c.opts.Burst))
	}
}

// ceiling is the rate and burst the limiter returns to when no header
// slows it: the configured ones, lowered by the 429s (aimd).
func (c *Client) ceiling() (float64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.aimd.Rate(), c.aimd.burst(c.opts.Burst)
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
		c.limiter.SetLimitAt(now, rate.Limit(c.aimd.Rate()))
		c.limiter.SetBurstAt(now, c.aimd.burst(c.opts.Burst))
	}
}

// Slowed reports whether the client currently runs below its configured
// rate because Jira signalled pressure (headers or 429s).
func (c *Client) Slowed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.slowUntil.IsZero() || c.aimd.Rate() < c.rps
}

// pacer is the client's limiter as the HTTP stack sees it: every attempt
// waits for it.
type pacer struct{ c *Client }

func (p pacer) Wait(ctx context.Context) error { return p.c.waitLimiter(ctx) }

// waitLimiter waits out a pause, then for the limiter, on the client's
// clock (Options.Now and Options.Sleep).
// A call's gate (WithGate) is asked before each wait and before the
// attempt leaves.
func (c *Client) waitLimiter(ctx context.Context) error {
	gate := gateOf(ctx)
	now := c.opts.Now()
	c.mu.Lock()
	pause := c.paused.Sub(now)
	c.mu.Unlock()
	if pause > 0 {
		if err := gate.ask(pause); err != nil {
			return err
		}
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
	if d := r.DelayFrom(now); d > 0 {
		if err := gate.ask(d); err != nil {
			r.CancelAt(now)
			return err
		}
		c.countWait()
		if err := c.opts.Sleep(ctx, d); err != nil {
			r.CancelAt(c.opts.Now())
			return err
		}
	}
	if err := gate.ask(0); err != nil {
		r.CancelAt(c.opts.Now())
		return err
	}
	return nil
}
