// Package fakeclock is a settable clock for tests and simulations, safe for
// concurrent use: the emulators, pollers and the test share one, and time
// moves only when the test says so (Set, Advance, AdvanceTo), or by a tick
// per call (Tick) for an emulator whose every write needs a time of its
// own. Sleep passes the time at once, so waits (jitter, Retry-After,
// backoff) cost no wall-clock time.
package fakeclock

import (
	"context"
	"sync"
	"time"
)

// Clock is a fake clock. The zero value stands at the zero time.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock standing at t.
func New(t time.Time) *Clock { return &Clock{now: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t (also backwards).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock on by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// AdvanceTo moves the clock to t unless it is already past it.
func (c *Clock) AdvanceTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}

// Tick moves the clock on by a millisecond and returns the new time.
func (c *Clock) Tick() time.Time { return c.Advance(time.Millisecond) }

// Sleep passes d at once; it fails only when ctx has ended.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.Advance(d)
	}
	return ctx.Err()
}
