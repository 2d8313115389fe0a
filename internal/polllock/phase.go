package polllock

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// The two phases of a lock's life (ARCHITECTURE.md, "The poll-lock
// protocol"). While no run has claimed it (phase pending or dispatched)
// the lock is a promise that the runs dispatched under it will come: it
// blocks the work item for PendingTTL only, and carries the positions the
// item's checkpoint had before that dispatch (From). Once a run marked it
// running, the run refreshes it and it blocks the item until it is older
// than the stale threshold.
//
// A lock no run claimed is never simply deleted by a poller: the poller
// takes it over (writes its own lock over it, then verifies), which makes
// the runs dispatched under it unable to start (their lock check fails),
// and dispatches their changes again from From. That is the give-back.
// It happens when the item has a new change and the lock is past its
// PendingTTL, or when the lock is stale.

// ClaimWait is how long a run waits between its claim of a lock that went
// past its PendingTTL (a write) and the re-read that confirms the claim
// held, and how long a poller that took such a lock over waits before its
// verification: each writes within that time of its own read, so of the
// two, one sees the other's write. ClaimWaitFor scales it down for short
// stale thresholds.
const ClaimWait = 3 * time.Second

// ClaimSendWithin is how soon after the read it was decided on a late
// run's claim, or a poller's takeover of a lock no run claimed, must
// leave: half the claim wait under stale threshold threshold
// (ClaimWaitFor). The other half covers the write's time in flight, so
// that it lands within the claim wait of that read and the other side's
// re-read, the claim wait after its own write, sees it. A write that
// could not leave in time is not sent (it is made again from a fresh
// read, or given up), and one answered more than the claim wait after
// its read is not trusted: it may have landed after the other side's
// re-read.
func ClaimSendWithin(threshold time.Duration) time.Duration { return ClaimWaitFor(threshold) / 2 }

// ClaimWaitFor is the claim wait under stale threshold threshold:
// ClaimWait, at most a quarter of the threshold (a poller's own lock must
// not go stale while it waits).
func ClaimWaitFor(threshold time.Duration) time.Duration {
	if threshold <= 0 {
		return ClaimWait
	}
	return min(ClaimWait, threshold/4)
}

// Position is a work item's checkpoint positions as lastCheck stores
// them: TS, and per harness an older position to retry from.
type Position struct {
	TS      time.Time            `json:"ts"`
	Harness map[string]time.Time `json:"harness,omitempty"`
}

// Pos is the position of harness h.
func (p Position) Pos(h string) time.Time {
	if t, ok := p.Harness[h]; ok && t.Before(p.TS) {
		return t
	}
	return p.TS
}

// Claimed reports whether a run took the lock over (phase running).
func (l Lock) Claimed() bool { return l.Phase == PhaseRunning }

// Owed reports whether taking l over owes a give-back: no run claimed it
// and it records the positions to dispatch its runs' changes again from.
func (l Lock) Owed() bool { return !l.Claimed() && l.From != nil }

// Expired reports whether l no longer blocks its work item at now: a
// claimed lock once stale (Stale with threshold), an unclaimed one once
// older than ttl (capped at threshold; ttl <= 0 means threshold).
func (l Lock) Expired(now time.Time, ttl, threshold time.Duration) bool {
	if l.Claimed() || ttl <= 0 || ttl > threshold {
		return l.Stale(now, threshold)
	}
	age := now.Sub(l.TS)
	return age > ttl || age < -threshold
}

// NewLockID returns a lock id of its own for one lock a poller writes:
// the poller's id, a dot and a random suffix. A run checks that its lock
// still carries its lock id, so a lock the same poller writes again later
// (after taking its own unclaimed lock over) is not the old runs' lock.
func NewLockID(poller string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return poller + "." + hex.EncodeToString(b[:])
}

// LockOwner is the poller id of a lock id (NewLockID); an id without a
// suffix is its own owner (locks written by older pollers).
func LockOwner(id string) string {
	if i := strings.LastIndexByte(id, '.'); i > 0 {
		return id[:i]
	}
	return id
}
