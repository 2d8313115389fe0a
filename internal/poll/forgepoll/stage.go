package forgepoll

import (
	"context"
	"fmt"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Stage is a forge driver's entity stage (poll.EntityResolver) over the
// window's subjects. Entities returns the cycle's resolver: each item's
// entity built by Build from what the cycle read, remembered, and, with
// scheduled discovery, its receipts and active runs filled in from the
// records; a swept item about to be dispatched has the records read
// afresh (Refresh) and those of a version older than the window once
// (Older).
type Stage[S Subject] struct {
	Name     string // the driver's, in errors
	Window   *Window[S]
	Ref      func(S) entity.Ref
	Build    func(context.Context, entity.Ref, S) (*entity.Entity, error)
	Refresh  func(ctx context.Context, floor time.Time) error
	Remember func(S, *entity.Entity)
	Older    func(ctx context.Context, s S, e *entity.Entity, floor time.Time) error
	Fill     func(*poll.Item, S)
}

// Entities implements poll.EntityResolver's Entities: the records are
// read afresh first when items hold a swept one; an error reading them
// stops the cycle.
func (st Stage[S]) Entities(ctx context.Context, items []*poll.Item) (poll.ItemResolver, error) {
	floor := st.Window.Floor()
	for _, it := range items {
		if it.Swept {
			if err := st.Refresh(ctx, floor); err != nil {
				return nil, err
			}
			break
		}
	}
	r := &cycleEntities[S]{st: st, floor: floor, subjects: map[entity.Ref]S{}}
	for _, it := range items {
		if s, ok := st.Window.Subject(it.ID); ok {
			r.subjects[st.Ref(s)] = s
		}
	}
	return r, nil
}

// cycleEntities is a Stage's resolver of one cycle, over the subjects of
// its items.
type cycleEntities[S Subject] struct {
	st       Stage[S]
	floor    time.Time
	subjects map[entity.Ref]S
}

// Ref implements poll.ItemResolver: an item the cycle's discovery does
// not know has none.
func (r *cycleEntities[S]) Ref(it *poll.Item) (entity.Ref, error) {
	s, ok := r.st.Window.Subject(it.ID)
	if !ok {
		return entity.Ref{}, fmt.Errorf("%s: item %s was not discovered in this cycle", r.st.Name, it.ID)
	}
	return r.st.Ref(s), nil
}

// Resolve implements entity.Resolver over this cycle's reads.
func (r *cycleEntities[S]) Resolve(ctx context.Context, ref entity.Ref) (*entity.Entity, error) {
	s, ok := r.subjects[ref]
	if !ok {
		return nil, fmt.Errorf("%s: %s was not discovered in this cycle", r.st.Name, ref)
	}
	return r.st.Build(ctx, ref, s)
}

// Resolved implements poll.ItemResolver: the entity is remembered and
// the item's receipts filled in (a swept one's older records read first).
func (r *cycleEntities[S]) Resolved(ctx context.Context, it *poll.Item) error {
	s, ok := r.st.Window.Subject(it.ID)
	if !ok {
		return nil
	}
	e := it.Entity.Entity
	r.st.Remember(s, e)
	if it.Swept {
		if err := r.st.Older(ctx, s, e, r.floor); err != nil {
			return err
		}
	}
	r.st.Fill(it, s)
	return nil
}
