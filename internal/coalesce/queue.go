// Package coalesce is the preserve-and-coalesce work queue of the local
// executor (docs/scheduling.md, docs/local.md).
//
// Guarantees, each kept by one small piece:
//
//   - Serialization (entry.active): at most one run per key is active.
//   - Coalescing (entry.pending): while a key is active, later submissions
//     collapse into ONE pending slot that holds the newest item; older
//     pending items are dropped. The active run is never cancelled by a
//     newer submission.
//   - Preservation: when a run ends — successfully, with an error or with a
//     panic — the key's pending item (if any) is run next, so the newest
//     item of a burst is never lost.
//   - Parallelism: different keys run concurrently, at most maxParallel at
//     a time.
//   - Fairness (ring): keys waiting for a free slot are started in FIFO
//     order, and a key whose run ended with a pending item re-enters at the
//     back, so a hot key cannot starve the others.
//   - Bounded memory: state exists only for keys with work (an active run
//     or a pending item); a key's entry is deleted once it has neither, and
//     the index is rebuilt when it has shrunk well below its peak. Memory is
//     O(keys with work), never O(submissions).
package coalesce

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// RunFunc executes one item for key. ctx is cancelled only by Abort. The
// returned error is counted in Stats and passed to the OnDone hook; it
// never prevents the key's pending item from starting.
type RunFunc[K comparable, T any] func(ctx context.Context, key K, item T) error

// Outcome says what Submit did with an item.
type Outcome int

// Submit outcomes.
const (
	// Started: the key was idle and a slot was free; a run started at once.
	Started Outcome = iota + 1
	// Queued: the key was idle but all slots were busy; it waits in FIFO
	// order for a slot.
	Queued
	// Pending: the key had an active run; the item now fills its empty
	// pending slot and starts when the active run ends.
	Pending
	// Coalesced: the key already held a pending item (waiting behind an
	// active run or for a slot); the new item replaced it.
	Coalesced
	// Rejected: the queue is closed; the item was not accepted.
	Rejected
)

func (o Outcome) String() string {
	switch o {
	case Started:
		return "started"
	case Queued:
		return "queued"
	case Pending:
		return "pending"
	case Coalesced:
		return "coalesced"
	case Rejected:
		return "rejected"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Accepted reports whether the item will run (unless it is itself
// coalesced away by a newer item or dropped by Stop).
func (o Outcome) Accepted() bool { return o >= Started && o <= Coalesced }

// Item is a key with its item, as reported for dropped pending work.
type Item[K comparable, T any] struct {
	Key  K
	Item T
}

// Options tune a Queue. The zero value is valid.
type Options[K comparable, T any] struct {
	// OnDone, when set, is called after every run with its result, outside
	// the queue's lock and before the key's next item starts.
	OnDone func(key K, item T, err error)
}

// entry is the per-key state. It exists only while the key has work.
type entry[T any] struct {
	active     bool // a run of this key is executing
	hasPending bool // pending holds an item to run next
	queued     bool // the key is in the ready ring
	pending    T
}

// Queue is the preserve-and-coalesce work queue. All methods are safe for
// concurrent use. Runs execute on goroutines the queue starts; a Queue
// with no work holds no goroutines.
type Queue[K comparable, T any] struct {
	run    RunFunc[K, T]
	onDone func(K, T, error)
	max    int

	ctx    context.Context // passed to runs; cancelled by Abort
	cancel context.CancelFunc

	mu      sync.Mutex
	entries map[K]*entry[T]
	peak    int // largest len(entries) since the index was last rebuilt
	ready   ring[K]
	active  int
	closed  bool // Submit rejects
	stopped bool // no new runs start
	idle    chan struct{}
	stats   Stats
}

// Stats are cumulative counters plus the current sizes.
type Stats struct {
	Submitted uint64 // accepted submissions
	Rejected  uint64 // submissions after Close
	Coalesced uint64 // pending items replaced by a newer one
	Started   uint64 // runs started
	Failed    uint64 // runs that returned an error or panicked
	Dropped   uint64 // pending items discarded by Stop
	Active    int    // runs executing now
	Keys      int    // keys with work (active or pending)
	Waiting   int    // idle keys waiting for a free slot
}

// ErrPanic wraps a panic raised by a RunFunc.
var ErrPanic = errors.New("run panicked")

// New returns a queue that runs at most maxParallel items at once
// (values below 1 mean 1) with run.
func New[K comparable, T any](maxParallel int, run RunFunc[K, T], opts ...Options[K, T]) *Queue[K, T] {
	if maxParallel < 1 {
		maxParallel = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := &Queue[K, T]{run: run, max: maxParallel, ctx: ctx, cancel: cancel,
		entries: make(map[K]*entry[T])}
	for _, o := range opts {
		if o.OnDone != nil {
			q.onDone = o.OnDone
		}
	}
	return q
}

// MaxParallel returns the parallelism limit.
func (q *Queue[K, T]) MaxParallel() int { return q.max }

// Submit hands item to the queue under key and says what happened to it.
// It never blocks on running work.
func (q *Queue[K, T]) Submit(key K, item T) Outcome {
	q.mu.Lock()
	if q.closed {
		q.stats.Rejected++
		q.mu.Unlock()
		return Rejected
	}
	q.stats.Submitted++
	e := q.entries[key]
	if e != nil {
		out := Pending
		if e.hasPending {
			out = Coalesced
			q.stats.Coalesced++
		}
		e.pending, e.hasPending = item, true
		q.mu.Unlock()
		return out
	}
	e = &entry[T]{pending: item, hasPending: true}
	q.entries[key] = e
	if len(q.entries) > q.peak {
		q.peak = len(q.entries)
	}
	if !q.stopped && q.active < q.max {
		q.startLocked(key, e)
		q.mu.Unlock()
		return Started
	}
	e.queued = true
	q.ready.push(key)
	q.mu.Unlock()
	return Queued
}

// startLocked moves e's pending item into a new active run.
func (q *Queue[K, T]) startLocked(key K, e *entry[T]) {
	item := e.pending
	var zero T
	e.pending, e.hasPending, e.active = zero, false, true
	q.active++
	q.stats.Started++
	go q.exec(key, e, item)
}

// exec runs one item and then hands the slot on.
func (q *Queue[K, T]) exec(key K, e *entry[T], item T) {
	err := q.call(key, item)
	if q.onDone != nil {
		q.onDone(key, item, err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if err != nil {
		q.stats.Failed++
	}
	e.active = false
	q.active--
	if e.hasPending {
		// The key re-enters at the back: others waiting go first.
		e.queued = true
		q.ready.push(key)
	} else {
		q.removeLocked(key)
	}
	q.fillLocked()
	q.signalIdleLocked()
}

// call invokes the RunFunc, turning a panic into an error.
func (q *Queue[K, T]) call(key K, item T) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrPanic, r)
		}
	}()
	return q.run(q.ctx, key, item)
}

// fillLocked starts waiting keys, oldest first, while slots are free.
func (q *Queue[K, T]) fillLocked() {
	for !q.stopped && q.active < q.max {
		key, ok := q.ready.pop()
		if !ok {
			return
		}
		e := q.entries[key]
		e.queued = false
		q.startLocked(key, e)
	}
}

// removeLocked forgets key and rebuilds the index once it has shrunk to a
// quarter of its peak, so a past burst does not pin memory.
func (q *Queue[K, T]) removeLocked(key K) {
	delete(q.entries, key)
	n := len(q.entries)
	if q.peak >= 1024 && n <= q.peak/4 {
		m := make(map[K]*entry[T], n)
		for k, v := range q.entries {
			m[k] = v
		}
		q.entries, q.peak = m, n
	}
	q.ready.shrink()
}

// signalIdleLocked wakes Wait callers once no key has work.
func (q *Queue[K, T]) signalIdleLocked() {
	if len(q.entries) == 0 && q.idle != nil {
		close(q.idle)
		q.idle = nil
	}
}

// Stats returns a snapshot of the counters.
func (q *Queue[K, T]) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.stats
	s.Active, s.Keys, s.Waiting = q.active, len(q.entries), q.ready.len()
	return s
}

// PendingItems returns a snapshot of the accepted items that have not
// started: each key's pending item, whether its key waits for a free slot
// or behind its own active run. Order is unspecified. It costs
// O(keys with work) under the queue's lock.
func (q *Queue[K, T]) PendingItems() []Item[K, T] {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []Item[K, T]
	for key, e := range q.entries {
		if e.hasPending {
			out = append(out, Item[K, T]{Key: key, Item: e.pending})
		}
	}
	return out
}
