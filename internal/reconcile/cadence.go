package reconcile

import (
	"sync"
	"time"
)

// Cadence spaces a poller's scheduled evaluations of each harness by its
// entity.every: a harness with every 0 is evaluated every cycle, one with
// every 1h in the first cycle and then in the first cycle at least an
// hour after the last one that evaluated it. It is a poller's own pacing
// (host clock, kept in memory): several pollers each keep theirs, which
// repeats evaluations, never runs (the reconcile rule and the lock
// decide those). Safe for concurrent use; the zero value is ready.
type Cadence struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// Due reports whether harness, evaluated every every, is due at now. It
// does not record anything: a cycle that evaluated it calls Done.
func (c *Cadence) Due(harness string, every time.Duration, now time.Time) bool {
	if every <= 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	last, ok := c.last[harness]
	return !ok || now.Sub(last) >= every || now.Before(last)
}

// Done records that harness was evaluated at now.
func (c *Cadence) Done(harness string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[string]time.Time{}
	}
	c.last[harness] = now
}
