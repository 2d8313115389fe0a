package poll

import (
	"context"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

// NoLocks is the lock half of a Driver for a backstop whose dispatched
// runs are the record (gitlab-poll, github-poll): there is no lock to
// take, verify, record, release or find stale, and runs hold no poll
// lock. Such a driver coordinates at dispatch instead: its output settles
// duplicates of one change. Embed it.
type NoLocks struct{}

// RemoveStale removes nothing: there are no locks.
func (NoLocks) RemoveStale(context.Context, []*Item) (int, error) { return 0, nil }

// Recheck reads nothing: there is no lock.
func (NoLocks) Recheck(context.Context, []*Item) error { return nil }

// Acquire holds every item.
func (NoLocks) Acquire(_ context.Context, items []*Item) error {
	for _, it := range items {
		it.Attempt()
		it.Hold()
	}
	return nil
}

// Verify re-reads nothing: there is no lock.
func (NoLocks) Verify(context.Context, []*Item) error { return nil }

// Dispatched records nothing: the output settled each run.
func (NoLocks) Dispatched(context.Context, []*Item) error { return nil }

// Release removes nothing: there is no lock.
func (NoLocks) Release(context.Context, *Item, bool) error { return nil }

// PollLock is nil: runs hold no poll lock.
func (NoLocks) PollLock(*Item) *plan.PollLock { return nil }
