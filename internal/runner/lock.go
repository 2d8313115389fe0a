package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// LockStore reads and writes the raw poll-lock value on a work item. The
// jira-poll implementation is JiraStore (issue entity properties).
// Get must be a strongly consistent read; found is false when the property
// does not exist.
type LockStore interface {
	Get(ctx context.Context, issueKey, property string) (raw []byte, found bool, err error)
	Put(ctx context.Context, issueKey, property string, raw []byte) error
	Delete(ctx context.Context, issueKey, property string) error
}

// Locker is the runner side of the poll-lock protocol for one lock. It
// never takes a lock that is not its own: every write is preceded by a read
// that checks the lock still carries ID.
type Locker struct {
	Store          LockStore
	Issue          string        // issue key holding the lock
	Property       string        // lock property key
	ID             string        // this run's lock id
	StaleThreshold time.Duration // a claimed lock older than this may be taken over
	// PendingTTL is how long an unclaimed lock blocks the item (the
	// pollers' lock.pending_ttl); past it a poller may take it over.
	PendingTTL time.Duration
	Run        plan.Ref // this CI run, recorded in the lock's runs
	// Now is the tracker's clock (trackerclock.Clock.Now): the lock's ts
	// is judged and written on it, like the pollers do.
	Now func() time.Time
	// Sleep waits d or until ctx ends (the claim's wait, polllock.ClaimWaitFor).
	Sleep func(ctx context.Context, d time.Duration) error
	// claimed is the lock as Acquire last wrote it.
	claimed polllock.Lock
}

// Claimed is the lock as Acquire wrote it (zero before): what the poller
// handed this run besides the reference (the entity versions and
// attribution records of Lock.Entity).
func (l *Locker) Claimed() polllock.Lock { return l.claimed }

// NewLocker builds a Locker for the reference pl. stale <= 0 means
// config.DefaultStaleThreshold.
func NewLocker(store LockStore, pl *plan.PollLock, stale time.Duration, run plan.Ref) (*Locker, error) {
	issue, prop, err := SplitProperty(pl.Property)
	if err != nil {
		return nil, err
	}
	if stale <= 0 {
		stale = config.DefaultStaleThreshold
	}
	return &Locker{Store: store, Issue: issue, Property: prop, ID: pl.ID,
		StaleThreshold: stale, PendingTTL: config.DefaultPendingTTL, Run: run, Now: time.Now, Sleep: sleep}, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ownership is the outcome of reading the lock.
type ownership struct {
	lock   polllock.Lock
	found  bool
	ours   bool
	reason string // why not ours
}

// read fetches and classifies the lock. A corrupt value is an *InputError;
// a store failure is returned as is.
func (l *Locker) read(ctx context.Context) (ownership, error) {
	raw, found, err := l.Store.Get(ctx, l.Issue, l.Property)
	if err != nil {
		return ownership{}, fmt.Errorf("read poll lock %s on %s: %w", l.Property, l.Issue, err)
	}
	if !found {
		return ownership{reason: "the lock property is gone"}, nil
	}
	lk, err := polllock.Parse(raw)
	if err != nil {
		return ownership{}, &InputError{Err: fmt.Errorf("lock property %s on %s is corrupt: %v", l.Property, l.Issue, err)}
	}
	o := ownership{lock: lk, found: true}
	if lk.ID != l.ID {
		o.reason = fmt.Sprintf("held by lock id %q: taken over, its changes are dispatched again", lk.ID)
	} else {
		o.ours = true
	}
	return o, nil
}

// Verify checks, without writing, that the lock still carries this run's
// id, however old it is: a lock no other poller took over is still this
// run's. Not ours → *LostLockError; corrupt → *InputError.
func (l *Locker) Verify(ctx context.Context) (polllock.Lock, error) {
	o, err := l.read(ctx)
	if err != nil {
		return polllock.Lock{}, err
	}
	if !o.ours {
		return polllock.Lock{}, &LostLockError{Issue: l.Issue, Property: l.Property, Reason: o.reason}
	}
	return o.lock, nil
}

// Acquire verifies the lock and marks it `phase: running` with a fresh
// timestamp and this CI run recorded in `runs`. It is the step before the
// agent starts, and the whole of --refresh-only.
//
// A late run (its lock past the pending TTL, or stale, by the time its
// claim is answered) may race a poller taking the lock over: it writes
// its claim, waits polllock.ClaimWaitFor its stale threshold and
// re-reads; it proceeds only when the lock still carries its id (the
// poller's own verification then sees the claim and backs off).
// Otherwise it is a *LostLockError: the poller that took the lock over
// dispatches the change again. The claim is bounded like the poller's
// takeover: it never leaves later than polllock.ClaimSendWithin after
// the read it was decided on (one that cannot is not sent, and is made
// again from a fresh read, at most claimTries times, the lock untouched),
// and a late run's claim answered more than the wait after that read is
// not trusted: the lock is put back as it was read, unclaimed, for a
// poller to take over and dispatch the change again, and the agent does
// not start.
func (l *Locker) Acquire(ctx context.Context) error {
	wait := polllock.ClaimWaitFor(l.StaleThreshold)
	for try := 1; ; try++ {
		read := l.Now() // the claim window starts when the read leaves (jira.SentAt), after this
		lk, err := l.Verify(jira.WithGate(ctx, jira.SentAt(&read, l.Now)))
		if err != nil {
			return err
		}
		err = l.markRunning(l.within(ctx, read.Add(polllock.ClaimSendWithin(l.StaleThreshold))), lk)
		switch {
		case errors.Is(err, jira.ErrNotSent) && try < claimTries:
			continue // nothing written: claim again from a fresh read
		case errors.Is(err, jira.ErrNotSent):
			return fmt.Errorf("claim poll lock %s on %s: no claim could leave within %s of its read in %d tries; "+
				"the lock is left unclaimed, for a poller to dispatch the change again: %w",
				l.Property, l.Issue, polllock.ClaimSendWithin(l.StaleThreshold), claimTries, err)
		case err != nil:
			return l.unclaim(ctx, lk, fmt.Errorf("mark poll lock %s on %s running: %w", l.Property, l.Issue, err))
		}
		l.claimed = lk
		return l.confirm(ctx, lk, read.Add(wait), wait)
	}
}

// claimTries bounds the claims Acquire makes when none could leave within
// the claim window of its read.
const claimTries = 3

// within is ctx with a gate (jira.WithGate) that lets no attempt of a
// write leave after deadline.
func (l *Locker) within(ctx context.Context, deadline time.Time) context.Context {
	return jira.WithGate(ctx, func(d time.Duration) error {
		if l.Now().Add(d).After(deadline) {
			return errors.New("the claim window of the lock's read has passed")
		}
		return nil
	})
}

// confirm is the rest of Acquire once the claim of lk was answered: a
// lock that is not late (a poller may judge it expired up to
// trackerclock.ClockError earlier than this run's clock says, and the
// verification's wait later) is the run's; a late one's claim must have
// been answered by deadline (the claim window) and still be there after
// the wait.
func (l *Locker) confirm(ctx context.Context, lk polllock.Lock, deadline time.Time, wait time.Duration) error {
	if !lk.Expired(l.Now().Add(wait+trackerclock.ClockError), l.PendingTTL, l.StaleThreshold) {
		return nil
	}
	if l.Now().After(deadline) {
		return l.distrust(ctx, lk, wait)
	}
	if err := l.Sleep(ctx, wait); err != nil {
		return &writeError{fmt.Errorf("confirm the claim of poll lock %s on %s: %w", l.Property, l.Issue, err)}
	}
	if _, err := l.Verify(ctx); err != nil {
		if IsLostLock(err) {
			return err
		}
		return l.unclaim(ctx, lk, fmt.Errorf("confirm the claim of poll lock %s on %s: %w", l.Property, l.Issue, err))
	}
	return nil
}

// distrust undoes a late claim answered after the claim window: it may
// have landed over the lock of a poller that took the lock over and has
// verified it since, so the agent must not start. A lock that no longer
// carries this run's id was taken over (*LostLockError); one that does is
// put back as it was read, unclaimed (unclaim), so that a poller takes it
// over and dispatches the change again.
func (l *Locker) distrust(ctx context.Context, lk polllock.Lock, wait time.Duration) error {
	if _, err := l.Verify(ctx); err != nil {
		if IsLostLock(err) {
			return err
		}
		return l.unclaim(ctx, lk, fmt.Errorf("re-read poll lock %s on %s after a late claim: %w", l.Property, l.Issue, err))
	}
	return l.unclaim(ctx, lk, fmt.Errorf("claim of poll lock %s on %s answered more than %s after its read: "+
		"a poller may have taken the lock over meanwhile, so the agent does not start", l.Property, l.Issue, wait))
}

// unclaim puts back lk, the lock as read before this run's claim, after
// the claim failed on a store error: the run cannot proceed, and the lock
// goes back to unclaimed, so that a poller takes it over in time and
// dispatches its change again (ARCHITECTURE.md, "Give-back"). If that
// write fails too, the claim may have landed: the error is a *writeError
// (the caller removes the lock rather than leave it without a run).
func (l *Locker) unclaim(ctx context.Context, lk polllock.Lock, cause error) error {
	if err := l.Store.Put(context.WithoutCancel(ctx), l.Issue, l.Property, lk.Marshal()); err != nil {
		return &writeError{fmt.Errorf("%w; putting the lock back unclaimed failed too: %v", cause, err)}
	}
	return fmt.Errorf("%w; the lock was put back unclaimed, for a poller to dispatch the change again", cause)
}

// markRunning writes lk back as this run's: phase running, this run's
// entry claimed in runs, a fresh timestamp.
func (l *Locker) markRunning(ctx context.Context, lk polllock.Lock) error {
	lk.Phase = polllock.PhaseRunning
	lk.Runs = polllock.Claim(lk.Runs, l.Run)
	lk.TS = l.Now()
	return l.Store.Put(ctx, l.Issue, l.Property, lk.Marshal())
}

// writeError is a failed lock write whose outcome is unknown: the lock may
// or may not carry the new value.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// Refresh re-reads the lock and, when it still carries this run's id, rewrites
// its timestamp (a late refresh of a lock that went stale but was not taken
// reclaims it). ours is false when the lock was taken by another id, removed
// or became unreadable: the caller stops refreshing. A store error leaves ours
// true (a transient failure is retried at the next tick).
func (l *Locker) Refresh(ctx context.Context) (ours bool, reason string, err error) {
	o, err := l.read(ctx)
	if err != nil {
		if IsInput(err) {
			return false, err.Error(), nil
		}
		return true, "", err
	}
	if !o.ours && (!o.found || o.lock.ID != l.ID) {
		return false, o.reason, nil
	}
	if err := l.markRunning(ctx, o.lock); err != nil {
		return true, "", fmt.Errorf("refresh poll lock %s on %s: %w", l.Property, l.Issue, err)
	}
	return true, "", nil
}

// Released is the outcome of Locker.Release.
type Released int

const (
	// ReleaseNotHeld: the lock is gone, corrupt or carries another id; it
	// was left alone.
	ReleaseNotHeld Released = iota
	// ReleaseDeleted: the lock carried this run's id and no other run; it
	// was deleted.
	ReleaseDeleted
	// ReleaseKept: the lock carried this run's id and other runs dispatched
	// with it are still recorded; this run's entry was removed and the lock
	// written back for them.
	ReleaseKept
)

// Release gives up this run's share of the lock when the lock still
// carries this run's id (stale or not: a run that finished releases what it
// held). This run's entry is removed from `runs`; when entries of other runs
// remain (one poll cycle dispatched several harnesses for the same work
// item, all sharing the lock) the lock is written back with a fresh `ts`
// and its phase unchanged, otherwise it is deleted. Entries of the plan
// drivers (json, gha-matrix), which start no runs, do not count. A stale
// lock is deleted whatever it lists: runs that still work on the item
// would have refreshed it, and pollers remove it anyway. A lock held by
// another id is left alone (ReleaseNotHeld).
func (l *Locker) Release(ctx context.Context) (Released, error) {
	raw, found, err := l.Store.Get(ctx, l.Issue, l.Property)
	if err != nil {
		return ReleaseNotHeld, fmt.Errorf("read poll lock %s on %s before release: %w", l.Property, l.Issue, err)
	}
	if !found {
		return ReleaseNotHeld, nil
	}
	lk, perr := polllock.Parse(raw)
	if perr != nil || lk.ID != l.ID {
		return ReleaseNotHeld, nil
	}
	if others := polllock.Others(lk.Runs, l.Run); len(others) > 0 && !lk.Stale(l.Now(), l.StaleThreshold) {
		lk.Runs = others
		lk.TS = l.Now()
		if err := l.Store.Put(ctx, l.Issue, l.Property, lk.Marshal()); err != nil {
			return ReleaseNotHeld, fmt.Errorf("write back poll lock %s on %s for %s: %w", l.Property, l.Issue, english.Count(len(others), "other run"), err)
		}
		return ReleaseKept, nil
	}
	if err := l.Store.Delete(ctx, l.Issue, l.Property); err != nil {
		return ReleaseNotHeld, fmt.Errorf("delete poll lock %s on %s: %w", l.Property, l.Issue, err)
	}
	return ReleaseDeleted, nil
}
