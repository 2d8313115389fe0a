package forgepoll

import (
	"context"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Subject is an issue, pull request or merge request a forge listing
// showed: Key is its item id (poll.Item.ID), UpdatedAt its updated_at.
type Subject interface {
	Key() string
	UpdatedAt() time.Time
}

// Window is one cycle's discovered subjects (Discover to Advance): the
// window's floor, each subject by its key, and per item the position of
// its newest change in the window (Detect); Advance takes an item as
// handled only for a checkpoint covering it. A handled item is one none
// of whose changes is after its checkpoint (the webhook or event path
// dispatched them) or whose newest change a checkpoint covers: its
// driver remembers, in memory, that it was handled at its updated_at,
// and skips it until it changes. Safe for concurrent use.
type Window[S Subject] struct {
	mu     sync.Mutex
	floor  time.Time
	items  map[string]S
	newest map[string]changepos.Pos
}

// Start begins a cycle's window at floor, with no subject.
func (w *Window[S]) Start(floor time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.floor, w.items, w.newest = floor, map[string]S{}, map[string]changepos.Pos{}
}

// Floor is the window's floor.
func (w *Window[S]) Floor() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.floor
}

// Put adds s to the window.
func (w *Window[S]) Put(s S) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.items == nil {
		w.items = map[string]S{}
	}
	w.items[s.Key()] = s
}

// Subject is the subject of item id, if the window holds it.
func (w *Window[S]) Subject(id string) (S, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.items[id]
	return s, ok
}

// Eligible adds todo to the window and returns their items: each one's
// checkpoint the newer of the floor and known's position for it (what
// the records hold), its cutoff the earlier of its updated_at and
// cutoff, waiting since its updated_at.
func (w *Window[S]) Eligible(todo []S, cutoff time.Time, known func(S) changepos.Pos) []*poll.Item {
	floor := w.Floor()
	var out []*poll.Item
	for _, s := range todo {
		base := changepos.At(floor)
		if pos := known(s); pos.After(base) {
			base = pos
		}
		w.Put(s)
		out = append(out, &poll.Item{ID: s.Key(), Base: poll.Checkpoint{At: base.At, ID: base.ID},
			Cutoff: MinTime(s.UpdatedAt(), cutoff), Waiting: s.UpdatedAt()})
	}
	return out
}

// SetNewest records the position of the newest change of item id.
func (w *Window[S]) SetNewest(id string, pos changepos.Pos) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.newest == nil {
		w.newest = map[string]changepos.Pos{}
	}
	w.newest[id] = pos
}

// Covered returns the subject of it when cp covers its newest change
// (poll.Checkpoint.Covers): the item is handled.
func (w *Window[S]) Covered(it *poll.Item, cp poll.Checkpoint) (S, bool) {
	w.mu.Lock()
	s, ok := w.items[it.ID]
	newest := w.newest[it.ID]
	w.mu.Unlock()
	return s, ok && cp.Covers(newest)
}

// Reader reads subject s's changes after floor that keep takes, mapped.
type Reader[S Subject] func(ctx context.Context, s S, floor time.Time, keep func(changepos.Pos) bool) ([]poll.Change, error)

// Detect is poll.Detector.Detect over the window: each item's changes
// after its checkpoint, up to its cutoff (poll.Item.InWindow), read by
// read. An item that fails is the item's failure. An item with no change
// in its window and none left for later is handled (handled is called
// with its subject and cutoff); otherwise its newest change is recorded.
func (w *Window[S]) Detect(ctx context.Context, items []*poll.Item, read Reader[S], handled func(id string, s S, cutoff time.Time)) error {
	floor := w.Floor()
	for _, it := range items {
		s, _ := w.Subject(it.ID)
		it.Changes = nil
		window := it.Filter()
		chs, err := read(ctx, s, floor, window.Keep)
		if err != nil {
			it.Fail(err)
			continue
		}
		it.Changes = chs
		if len(chs) == 0 && !window.Later() {
			handled(it.ID, s, it.Cutoff)
			continue
		}
		if n := len(chs); n > 0 {
			w.SetNewest(it.ID, chs[n-1].Pos())
		}
	}
	return nil
}

// MinTime is the earlier of a and b.
func MinTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
