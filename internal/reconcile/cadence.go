package reconcile

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Cadence spaces a poller's scheduled evaluations of each harness on each
// entity (a CadenceKey) by the harness's entity.every: with every 0 an
// entity is evaluated in every cycle that sees it, with every 1h in the
// first one and then in the first one at least an hour after the last
// that evaluated it. It is a poller's own pacing (on the tracker's clock,
// since a one-shot poller's next process may run on another host; kept in
// memory, at most maxCadence keys: past that the entries whose every has
// elapsed go, then all of them, which only evaluates some entities
// early); a one-shot poller keeps it across processes in its state
// (Snapshot, Restore). Several pollers each keep theirs, which repeats
// evaluations, never runs (the reconcile rule and the lock decide
// those). Safe for concurrent use; the zero value is ready.
type Cadence struct {
	mu   sync.Mutex
	last map[string]CadenceEntry
}

// CadenceEntry is one remembered evaluation: when (tracker clock) and the
// every it was evaluated under.
type CadenceEntry struct {
	Key   string        `json:"key"`
	At    time.Time     `json:"at"`
	Every time.Duration `json:"every"`
}

// maxCadence bounds the keys a Cadence remembers.
const maxCadence = 100000

// MaxSavedCadence bounds the entries Snapshot returns (the newest): a
// saved cadence is at most this many entries (about 100 bytes each).
const MaxSavedCadence = 10000

// CadenceKey names a harness's evaluations of one item.
func CadenceKey(harness, item string) string { return harness + "\x00" + item }

// Due reports whether key, evaluated every every, is due at now. It
// does not record anything: a cycle that evaluated it calls Done.
func (c *Cadence) Due(key string, every time.Duration, now time.Time) bool {
	if every <= 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.last[key]
	return !ok || now.Sub(e.At) >= every || now.Before(e.At)
}

// Done records that key, evaluated every every, was evaluated at now.
// With every 0 nothing is kept (every cycle is due).
func (c *Cadence) Done(key string, every time.Duration, now time.Time) {
	if every <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[string]CadenceEntry{}
	}
	if len(c.last) >= maxCadence {
		c.pruneLocked(now)
		if len(c.last) >= maxCadence {
			c.last = map[string]CadenceEntry{}
		}
	}
	c.last[key] = CadenceEntry{Key: key, At: now, Every: every}
}

// pruneLocked drops the entries that no longer hold anything back at now:
// their every has elapsed (or the clock went back past them).
func (c *Cadence) pruneLocked(now time.Time) {
	for k, e := range c.last {
		if now.Sub(e.At) >= e.Every || now.Before(e.At) {
			delete(c.last, k)
		}
	}
}

// Snapshot is what the cadence still holds back at now, to be saved: the
// entries whose every has not elapsed, at most MaxSavedCadence of them
// (the newest; dropping the others only evaluates those entities early),
// newest first.
func (c *Cadence) Snapshot(now time.Time) []CadenceEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruneLocked(now)
	out := make([]CadenceEntry, 0, len(c.last))
	for _, e := range c.last {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b CadenceEntry) int {
		return cmp.Or(b.At.Compare(a.At), cmp.Compare(a.Key, b.Key))
	})
	return out[:min(len(out), MaxSavedCadence)]
}

// Restore adds saved entries (Snapshot) to the cadence; entries with no
// key or no every are ignored, and so are those past maxCadence.
func (c *Cadence) Restore(saved []CadenceEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[string]CadenceEntry{}
	}
	for _, e := range saved {
		if e.Key == "" || e.Every <= 0 || len(c.last) >= maxCadence {
			continue
		}
		if old, ok := c.last[e.Key]; !ok || e.At.After(old.At) {
			c.last[e.Key] = e
		}
	}
}
