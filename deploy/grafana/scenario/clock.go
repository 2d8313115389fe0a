package scenario

import (
	"context"
	"sync"
	"time"
)

// clock is the scenario's fake time. The Jira emulator's reads move it on
// by a millisecond (every write gets a time of its own); waits (lock
// jitter, Retry-After, backoff) pass it at once.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) tick() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

// advanceTo moves the clock to t unless it is already past it.
func (c *clock) advanceTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}

func (c *clock) sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.advanceTo(c.Now().Add(d))
	}
	return ctx.Err()
}
