package jirapoll

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// firstErr keeps the first error that must stop the cycle.
type firstErr struct {
	mu  sync.Mutex
	err error
}

func (f *firstErr) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *firstErr) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// classifyErr sorts a per-issue API error: auth stops the cycle, 404 means
// the issue is gone, anything else skips the issue.
func classifyErr(it *poll.Item, what string, err error, stop *firstErr) {
	switch {
	case jira.IsAuth(err):
		stop.set(fmt.Errorf("%s on %s: %w: %w", what, it.ID, poll.ErrAuth, err))
	case jira.IsNotFound(err):
		it.Vanish()
	default:
		it.Fail(fmt.Errorf("%s on %s: %w", what, it.ID, err))
	}
}

func (d *Driver) lockValue(phase string, refs []plan.Ref) json.RawMessage {
	return polllock.Lock{ID: d.o.PollerID, TS: d.o.Now(), Phase: phase, Runs: refs}.Marshal()
}

// Acquire implements poll.Driver. One reconciled (strongly consistent)
// search first re-reads the selected issues, because discovery's search
// may lag behind other pollers' writes: issues now locked or no longer
// changed are skipped, and the others' checkpoint and cutoff are
// refreshed. Then one lock write per issue, in parallel.
func (d *Driver) Acquire(ctx context.Context, items []*poll.Item) error {
	if err := d.recheck(ctx, items); err != nil {
		return err
	}
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		if ctx.Err() != nil || stop.get() != nil || it.State() != poll.StateSelected {
			return
		}
		it.Attempt()
		d.remember(d.issue(it.ID).id)
		err := d.o.API.SetProperty(ctx, it.ID, d.lockKey, d.lockValue(polllock.PhasePending, nil))
		if err != nil {
			classifyErr(it, "writing the poll lock", err, &stop)
			return
		}
		it.Hold()
	})
	return stop.get()
}

// recheck refreshes items from a consistent read. When Jira rejects the
// read (an issue was deleted, so its key no longer validates) each item's
// properties are read on their own: discovery's view may lag behind
// another poller's lock, which must not be overwritten.
func (d *Driver) recheck(ctx context.Context, items []*poll.Item) error {
	found, err := d.reconciled(ctx, items, []string{"updated", "created"})
	switch {
	case jira.IsBadRequest(err):
		d.o.Log.Info("consistent re-read before locking rejected; re-reading each issue", "error", err.Error())
		return d.recheckEach(ctx, items)
	case jira.IsAuth(err):
		return fmt.Errorf("re-reading issues before locking: %w: %w", poll.ErrAuth, err)
	case err != nil:
		return fmt.Errorf("re-reading issues before locking: %w", err)
	}
	now := d.o.Now()
	for _, it := range items {
		is, ok := found[it.ID]
		if !ok {
			it.Vanish()
			continue
		}
		v := d.look(is, now)
		if v.locked || !v.changed {
			it.Skip()
			continue
		}
		it.Base, it.StaleLock = v.base, v.stale
		if is.Fields.Updated.After(it.Cutoff) {
			it.Cutoff = is.Fields.Updated.Time
		}
	}
	return nil
}

// recheckEach is recheck with two property reads per item; an item whose
// reads fail is skipped (Item.Err) and a vanished one is Gone. The update
// time stays discovery's.
func (d *Driver) recheckEach(ctx context.Context, items []*poll.Item) error {
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		if ctx.Err() != nil || stop.get() != nil {
			return
		}
		lock, check, err := d.readProps(ctx, it.ID)
		if err != nil {
			classifyErr(it, "re-reading the issue before locking", err, &stop)
			return
		}
		now := d.o.Now()
		locked, stale, _ := d.lockState(it.ID, lock, now)
		base, _ := d.checkpoint(it.ID, check, now)
		if locked || !(base.At.IsZero() || it.Cutoff.After(base.At) || base.Pending()) {
			it.Skip()
			return
		}
		it.Base, it.StaleLock = base, stale
	})
	if err := stop.get(); err != nil {
		return err
	}
	return ctx.Err()
}

// readProps reads the lock and lastCheck properties of issue (each nil
// when absent) with two strongly consistent reads.
func (d *Driver) readProps(ctx context.Context, issue string) (lock, check json.RawMessage, err error) {
	lock, _, err = d.o.API.GetProperty(ctx, issue, d.lockKey)
	if err == nil {
		check, _, err = d.o.API.GetProperty(ctx, issue, d.checkKey)
	}
	return lock, check, err
}

// reconciled reads items with one search per 50 that Jira answers from
// current data (reconcileIssues), keyed by issue key.
func (d *Driver) reconciled(ctx context.Context, items []*poll.Item, fields []string) (map[string]jira.Issue, error) {
	out := make(map[string]jira.Issue, len(items))
	for start := 0; start < len(items); start += maxReconcile {
		chunk := items[start:min(start+maxReconcile, len(items))]
		keys := make([]string, len(chunk))
		ids := make([]int64, len(chunk))
		for i, it := range chunk {
			keys[i], ids[i] = it.ID, d.issue(it.ID).id
		}
		jql, err := jira.KeyIn(keys)
		if err != nil {
			return nil, err
		}
		req := jira.SearchRequest{JQL: jql, Fields: fields, Properties: []string{d.lockKey, d.checkKey},
			MaxResults: len(keys), ReconcileIssues: ids}
		found, err := d.o.API.Search(ctx, req, len(keys))
		if err != nil {
			return nil, err
		}
		for _, is := range found {
			out[is.Key] = is
		}
	}
	return out, nil
}

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
	})
	return stop.get()
}

// settle applies a consistent read: the lock must carry this poller's id
// and be fresh; the checkpoint is refreshed.
func (d *Driver) settle(it *poll.Item, lockRaw, checkRaw json.RawMessage) {
	now := d.o.Now()
	ours := false
	if len(lockRaw) > 0 {
		if l, err := polllock.Parse(lockRaw); err == nil {
			ours = l.HeldBy(d.o.PollerID, now, d.o.StaleThreshold)
		}
	}
	if !ours {
		it.Lose()
		return
	}
	it.Base, _ = d.checkpoint(it.ID, checkRaw, now)
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
	batch := err == nil
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		var raw json.RawMessage
		var ok bool
		if batch {
			is, present := found[it.ID]
			if !present {
				return // the issue is gone
			}
			raw = is.Properties[d.lockKey]
			ok = len(raw) > 0
		} else {
			var rerr error
			raw, ok, rerr = d.o.API.GetProperty(ctx, it.ID, d.lockKey)
			switch {
			case jira.IsNotFound(rerr):
				return
			case jira.IsAuth(rerr):
				classifyErr(it, "reading the poll lock", rerr, &stop)
				return
			case rerr != nil:
				raw, ok = nil, true // unknown: record the runs as before
			}
		}
		val := d.lockValue(polllock.PhaseDispatched, it.Refs)
		if !ok && len(it.Refs) <= 1 {
			d.o.Log.Info("poll lock already released by the dispatched run; not written again", "issue", it.ID)
			return
		}
		if l, perr := polllock.Parse(raw); perr == nil {
			if l.ID != d.o.PollerID {
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

// Advance implements poll.Driver.
func (d *Driver) Advance(ctx context.Context, it *poll.Item, cp poll.Checkpoint) error {
	if err := d.o.API.SetProperty(ctx, it.ID, d.checkKey, lastCheckValue(cp)); err != nil {
		return fmt.Errorf("writing lastCheck on %s: %w", it.ID, err)
	}
	return nil
}

// Release implements poll.Driver.
func (d *Driver) Release(ctx context.Context, it *poll.Item, check bool) error {
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
		if l, err := polllock.Parse(raw); err == nil && l.ID != d.o.PollerID {
			return nil // another poller's lock now
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
			if _, stale, _ := d.lockState(it.ID, raw, d.o.Now()); !stale {
				return
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
