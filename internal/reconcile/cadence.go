package reconcile

import (
	"sync"
	"time"
)

// Cadence spaces a poller's scheduled evaluations of each harness on each
// entity (a CadenceKey) by the harness's entity.every: with every 0 an
// entity is evaluated in every cycle that sees it, with every 1h in the
// first one and then in the first one at least an hour after the last
// that evaluated it. It is a poller's own pacing (host clock, kept in
// memory, at most maxCadence keys: past that it starts afresh, which
// only evaluates some entities early): several pollers each keep theirs, which repeats
// evaluations, never runs (the reconcile rule and the lock decide
// those). Safe for concurrent use; the zero value is ready.
type Cadence struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// maxCadence bounds the keys a Cadence remembers.
const maxCadence = 100000

// CadenceKey names a harness's evaluations of one item.
func CadenceKey(harness, item string) string { return harness + "\x00" + item }

// Due reports whether key, evaluated every every, is due at now. It
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
	if c.last == nil || len(c.last) >= maxCadence {
		c.last = map[string]time.Time{}
	}
	c.last[harness] = now
}
