package jirapoll

// The poll lock after it was taken: verification right before dispatch,
// handoff to the dispatched runs, checkpoint, release and stale removal.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// Verify implements poll.Driver with one reconciled (strongly consistent)
// search over the held items; if Jira rejects it (an issue was deleted, so
// its key no longer validates), each item is read on its own.
func (d *Driver) Verify(ctx context.Context, items []*poll.Item) error {
	if len(items) == 0 {
		return nil
	}
	found, err := d.reconciled(ctx, items, []string{"updated"})
	if jira.IsBadRequest(err) {
		return d.verifyEach(ctx, items)
	}
	if err != nil {
		return apiStop("verifying poll locks", err)
	}
	for _, it := range items {
		is, ok := found[it.ID]
		if !ok {
			it.Vanish()
			continue
		}
		d.settle(it, is.Properties[d.lockKey], is.Properties[d.checkKey])
		it.Receipts = d.receiptsOf(it.ID, is.Properties[d.receiptsKey])
	}
	return nil
}

func (d *Driver) verifyEach(ctx context.Context, items []*poll.Item) error {
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		lock, check, err := d.readProps(ctx, it.ID)
		if err != nil {
			classifyErr(it, "verifying the poll lock", err, &stop)
			return
		}
		d.settle(it, lock, check)
		if it.State() == poll.StateHeld {
			d.rereadReceipts(ctx, it, &stop)
		}
	})
	return stop.get()
}

// settle applies a consistent read: the lock must carry the id this
// cycle wrote and not be stale; the checkpoint is refreshed (and rewound
// again when the lock taken over was owed a give-back).
func (d *Driver) settle(it *poll.Item, lockRaw, checkRaw json.RawMessage) {
	now := d.o.Now()
	st := d.issue(it.ID)
	ours := false
	if len(lockRaw) > 0 {
		if l, err := polllock.Parse(lockRaw); err == nil {
			ours = l.HeldBy(st.lockID, now, d.o.StaleThreshold)
		}
	}
	if !ours {
		it.Lose()
		return
	}
	it.Base, _ = d.checkpoint(it.ID, checkRaw, now)
	if st.giveBack != nil {
		it.Base = rewind(it.Base, *st.giveBack)
	}
}

// Dispatched implements poll.Driver. The runs were started before this
// write, so some may already have taken the lock over: the locks are
// re-read first, with one reconciled (strongly consistent) search for the
// batch. A lock that is gone, with one run dispatched, was released by
// that run, which already ended: it is not written back (it would hold the
// issue without a run until it goes stale). With several runs it is
// written back, because one may have ended while another has not started
// yet and needs it (when all ended, it stays until stale). A lock held by
// another id is left alone; one a run marked running keeps its phase and
// gets the other references added to its runs; the rest (still pending,
// or unreadable) become phase dispatched with Item.Refs.
func (d *Driver) Dispatched(ctx context.Context, items []*poll.Item) error {
	found, err := d.reconciled(ctx, items, []string{"updated"})
	if err != nil && jira.IsAuth(err) {
		return apiStop("re-reading poll locks before recording dispatched runs", err)
	}
	if err != nil {
		found = nil // read each lock on its own
	}
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		raw, ok, gone := d.dispatchedLock(ctx, it, found, &stop)
		if gone {
			return
		}
		val := d.lockValue(it, polllock.PhaseDispatched, it.Refs)
		if !ok && len(it.Refs) <= 1 {
			d.o.Log.Info("poll lock already released by the dispatched run; not written again", "issue", it.ID)
			return
		}
		if l, perr := polllock.Parse(raw); perr == nil {
			if l.ID != d.issue(it.ID).lockID {
				it.Fail(fmt.Errorf("recording the dispatched runs on %s: the poll lock is now held by %q; left alone", it.ID, l.ID))
				return
			}
			if l.Phase == polllock.PhaseRunning {
				l.Runs, l.TS = polllock.Record(l.Runs, it.Refs), d.o.Now()
				val = l.Marshal()
			}
		}
		if err := d.o.API.SetProperty(ctx, it.ID, d.lockKey, val); err != nil {
			classifyErr(it, "writing the dispatched poll lock", err, &stop)
		}
	})
	return stop.get()
}

// dispatchedLock is the lock on it before its runs are recorded: from
// found (the batch read) when there is one, else read on its own. ok is
// false when there is no lock; an unreadable one is reported present (the
// runs are recorded as before). done is true when the issue is gone or the
// read was refused, and nothing must be written.
func (d *Driver) dispatchedLock(ctx context.Context, it *poll.Item, found map[string]jira.Issue, stop *firstErr) (raw json.RawMessage, ok, done bool) {
	if found != nil {
		is, present := found[it.ID]
		if !present {
			return nil, false, true // the issue is gone
		}
		raw = is.Properties[d.lockKey]
		return raw, len(raw) > 0, false
	}
	raw, ok, err := d.o.API.GetProperty(ctx, it.ID, d.lockKey)
	switch {
	case jira.IsNotFound(err):
		return nil, false, true
	case jira.IsAuth(err):
		classifyErr(it, "reading the poll lock", err, stop)
		return nil, false, true
	case err != nil:
		return nil, true, false // unknown: record the runs as before
	}
	return raw, ok, false
}

// Advance implements poll.Driver. A checkpoint written after the item's
// changes were decided carries the give-back of a lock taken over (the
// rewound positions, or the dispatch made from them).
func (d *Driver) Advance(ctx context.Context, it *poll.Item, cp poll.Checkpoint) error {
	st := d.issue(it.ID)
	if err := d.o.API.SetProperty(ctx, it.ID, d.checkKey, lastCheckValue(cp, st.lockID)); err != nil {
		return fmt.Errorf("writing lastCheck on %s: %w", it.ID, err)
	}
	st.owed = false
	return nil
}

// Release implements poll.Driver. An item whose give-back is not in its
// checkpoint yet (a lock taken over, then a stop or a failed dispatch
// before any checkpoint) gets its rewound checkpoint written first, so
// that the next cycle dispatches the changes; when that write fails, the
// lock is left: it carries the same positions (From), expires after the
// pending TTL, and the next taker gives them back.
func (d *Driver) Release(ctx context.Context, it *poll.Item, check bool) error {
	st := d.issue(it.ID)
	if check {
		raw, found, err := d.o.API.GetProperty(ctx, it.ID, d.lockKey)
		if err != nil {
			if jira.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("reading the poll lock on %s before removing it: %w", it.ID, err)
		}
		if !found {
			return nil
		}
		if l, err := polllock.Parse(raw); err == nil && l.ID != st.lockID {
			return nil // another poller's lock now
		}
	}
	if st.owed {
		if err := d.Advance(ctx, it, it.Base); err != nil {
			return fmt.Errorf("poll lock on %s left to expire, it carries changes to dispatch again: %w", it.ID, err)
		}
	}
	if _, err := d.o.API.DeleteProperty(ctx, it.ID, d.lockKey); err != nil && !jira.IsNotFound(err) {
		return fmt.Errorf("removing the poll lock on %s: %w", it.ID, err)
	}
	return nil
}

// RemoveStale implements poll.Driver: each lock is re-read and deleted
// only while it is still stale (a runner may have refreshed it since).
func (d *Driver) RemoveStale(ctx context.Context, items []*poll.Item) (int, error) {
	var mu sync.Mutex
	removed := 0
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		if ctx.Err() != nil || stop.get() != nil {
			return
		}
		raw, found, err := d.o.API.GetProperty(ctx, it.ID, d.lockKey)
		if err == nil && found {
			if lv := d.lockView(it.ID, raw, d.o.Now()); !lv.stale || lv.owed != nil {
				return // refreshed since, or owed a give-back (taken over instead)
			}
			_, err = d.o.API.DeleteProperty(ctx, it.ID, d.lockKey)
			if err == nil {
				mu.Lock()
				removed++
				mu.Unlock()
				d.o.Log.Info("stale poll lock removed", "issue", it.ID, "property", d.lockKey)
			}
		}
		if err != nil && jira.IsAuth(err) {
			stop.set(fmt.Errorf("removing a stale poll lock on %s: %w: %w", it.ID, poll.ErrAuth, err))
		} else if err != nil && !jira.IsNotFound(err) {
			d.o.Log.Warn("could not remove a stale poll lock", "issue", it.ID, "error", err.Error())
		}
	})
	return removed, stop.get()
}
