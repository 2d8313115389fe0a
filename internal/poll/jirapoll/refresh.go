package jirapoll

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// RefreshLocks keeps fresh the poll locks of runs this poller dispatched
// that have not started yet (runs waiting in the local executor's queue),
// which no `fullsend run` refreshes until it starts. Each lock of this
// driver that names this poller's id is re-read (a strongly consistent
// read) and, while it still carries this poller's id, written back with
// ts set to now, its phase and runs unchanged; a stale lock still carrying
// the id is reclaimed the same way (as a runner's refresh does). A lock
// that is gone, corrupt or held by another id is left alone and counted as
// lost: its run will find it so when it starts, and exit without running.
// References of another driver, poller or lock property are ignored.
// Like every lock write, the read and the write are not atomic (Jira has no
// compare-and-set): a run that takes the lock over in between may see its
// phase turned back to the one read until its own next refresh.
//
// Per-lock failures are returned joined, after the others were tried;
// refused credentials stop the round (poll.ErrAuth). It may be called
// while a cycle runs.
func (d *Driver) RefreshLocks(ctx context.Context, locks []plan.PollLock) (refreshed, lost int, err error) {
	var mu sync.Mutex
	var errs []error
	var stop firstErr
	each(d.o.Concurrency, locks, func(pl plan.PollLock) {
		if pl.Driver != Name || polllock.LockOwner(pl.ID) != d.o.PollerID || ctx.Err() != nil || stop.get() != nil {
			return
		}
		issue, prop, perr := polllock.ParseRef(pl.Property)
		if perr != nil || prop != d.lockKey {
			return
		}
		ok, rerr := d.refreshLock(ctx, issue, pl.ID)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case rerr != nil && jira.IsAuth(rerr):
			stop.set(fmt.Errorf("refreshing the poll lock on %s: %w: %w", issue, poll.ErrAuth, rerr))
		case rerr != nil:
			errs = append(errs, rerr)
		case ok:
			refreshed++
		default:
			lost++
		}
	})
	if err := stop.get(); err != nil {
		return refreshed, lost, err
	}
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return refreshed, lost, errors.Join(errs...)
}

// refreshLock rewrites the ts of the lock on issue while it carries this
// poller's id; ok is false when the lock is gone, corrupt or another's.
func (d *Driver) refreshLock(ctx context.Context, issue, id string) (ok bool, err error) {
	raw, found, err := d.o.API.GetProperty(ctx, issue, d.lockKey)
	switch {
	case jira.IsNotFound(err):
		found = false
	case err != nil:
		return false, fmt.Errorf("reading the poll lock on %s to refresh it: %w", issue, err)
	}
	if !found {
		d.o.Log.Warn("poll lock of a run waiting to start is gone; not refreshed", "issue", issue, "property", d.lockKey)
		return false, nil
	}
	l, perr := polllock.Parse(raw)
	if perr != nil || l.ID != id {
		reason := "corrupt"
		if perr == nil {
			reason = fmt.Sprintf("held by lock id %q", l.ID)
		}
		d.o.Log.Warn("poll lock of a run waiting to start is no longer ours; left alone", "issue", issue,
			"property", d.lockKey, "reason", reason)
		return false, nil
	}
	l.TS = d.o.Now()
	if err := d.o.API.SetProperty(ctx, issue, d.lockKey, json.RawMessage(l.Marshal())); err != nil {
		if jira.IsNotFound(err) {
			return false, nil // the issue was deleted
		}
		return false, fmt.Errorf("refreshing the poll lock on %s: %w", issue, err)
	}
	return true, nil
}
