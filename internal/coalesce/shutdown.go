package coalesce

import "context"

// Close stops accepting submissions: later Submit calls return Rejected.
// Work already accepted — active runs and pending items — still runs.
// Close is idempotent.
func (q *Queue[K, T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}

// Wait blocks until no key has work (no active run and no pending item)
// or ctx is done, and returns ctx's error in the latter case. It does not
// close the queue: new submissions keep it busy.
func (q *Queue[K, T]) Wait(ctx context.Context) error {
	q.mu.Lock()
	if len(q.entries) == 0 {
		q.mu.Unlock()
		return nil
	}
	if q.idle == nil {
		q.idle = make(chan struct{})
	}
	ch := q.idle
	q.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Drain closes the queue and waits until every accepted item has run, or
// ctx is done.
func (q *Queue[K, T]) Drain(ctx context.Context) error {
	q.Close()
	return q.Wait(ctx)
}

// Stop closes the queue, starts no further runs and discards every
// pending item, returning them (waiting keys in FIFO order first, then the
// pending items of active keys in no particular order). Active runs keep
// running; use Wait to wait for them and Abort to cancel them.
func (q *Queue[K, T]) Stop() []Item[K, T] {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed, q.stopped = true, true
	var dropped []Item[K, T]
	var zero T
	for {
		key, ok := q.ready.pop()
		if !ok {
			break
		}
		e := q.entries[key]
		dropped = append(dropped, Item[K, T]{Key: key, Item: e.pending})
		delete(q.entries, key)
	}
	for key, e := range q.entries {
		if e.hasPending {
			dropped = append(dropped, Item[K, T]{Key: key, Item: e.pending})
			e.pending, e.hasPending = zero, false
		}
	}
	q.stats.Dropped += uint64(len(dropped))
	q.ready.shrink()
	q.signalIdleLocked()
	return dropped
}

// Abort cancels the context handed to active runs (and to any run that
// starts later). It does not wait; use Wait.
func (q *Queue[K, T]) Abort() { q.cancel() }
