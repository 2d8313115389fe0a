package core

import (
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/scope"
)

// Breaker is the per-scope rate-limit circuit breaker: at most Limit runs
// per scope key in any sliding hour. Only runs that started count: Allow
// takes a slot and Refund returns it when the dispatch failed. A single pending slot does not bound
// consecutive runs; this does.
//
// Memory is O(keys that ran in the last hour): each key keeps at most Limit
// timestamps, and keys whose timestamps have all expired are pruned.
// Safe for concurrent use.
type Breaker struct {
	limit  int
	window time.Duration
	now    func() time.Time

	mu        sync.Mutex
	starts    map[scope.Key][]time.Time
	lastPrune time.Time
}

// NewBreaker allows limit runs per scope per hour; limit <= 0 disables it
// (Allow always returns true).
func NewBreaker(limit int) *Breaker { return NewBreakerClock(limit, time.Now) }

// NewBreakerClock is NewBreaker reading the time from now (tests).
func NewBreakerClock(limit int, now func() time.Time) *Breaker {
	return &Breaker{limit: limit, window: time.Hour, now: now, starts: map[scope.Key][]time.Time{}}
}

// Allow records a run start for key and reports true, or reports false
// without recording when key already started Limit runs in the window.
func (b *Breaker) Allow(key scope.Key) bool {
	if b == nil || b.limit <= 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.pruneLocked(now)
	ts := expire(b.starts[key], now.Add(-b.window))
	if len(ts) >= b.limit {
		b.starts[key] = ts
		return false
	}
	b.starts[key] = append(ts, now)
	return true
}

// Refund gives back the newest start recorded for key: the run Allow
// admitted did not start (its dispatch failed), and only runs that
// started count against the limit.
func (b *Breaker) Refund(key scope.Key) {
	if b == nil || b.limit <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if ts := b.starts[key]; len(ts) > 0 {
		b.starts[key] = ts[:len(ts)-1]
	}
}

// Keys reports how many scope keys the breaker currently tracks.
func (b *Breaker) Keys() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.starts)
}

func (b *Breaker) pruneLocked(now time.Time) {
	if now.Sub(b.lastPrune) < b.window/6 {
		return
	}
	b.lastPrune = now
	cut := now.Add(-b.window)
	for k, ts := range b.starts {
		if ts = expire(ts, cut); len(ts) == 0 {
			delete(b.starts, k)
		} else {
			b.starts[k] = ts
		}
	}
}

// expire drops timestamps at or before cut (ts is ascending).
func expire(ts []time.Time, cut time.Time) []time.Time {
	i := 0
	for i < len(ts) && !ts[i].After(cut) {
		i++
	}
	if i == 0 {
		return ts
	}
	return append(ts[:0], ts[i:]...)
}
