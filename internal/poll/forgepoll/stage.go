package forgepoll

import (
	"context"
	"fmt"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Stage is a forge driver's entity stage (poll.EntityResolver's
// ResolveEntities) over the window's subjects: each item's entity built
// by Resolve from what the cycle read, remembered, and, with scheduled
// discovery, its receipts and active runs filled in from the records; a
// swept item about to be dispatched has the records read afresh
// (Refresh) and those of a version older than the window once (Older).
type Stage[S Subject] struct {
	Name     string // the driver's, in errors
	Window   *Window[S]
	Refresh  func(ctx context.Context, floor time.Time) error
	Resolve  func(context.Context, S) (*entity.Entity, error)
	Remember func(S, *entity.Entity)
	Older    func(ctx context.Context, s S, e *entity.Entity, floor time.Time) error
	Fill     func(*poll.Item, S)
}

// Run sets every item's Entity: an item the cycle's discovery does not
// know, or whose entity cannot be built, gets the error that denies its
// evaluation. It returns an error only when the records cannot be read.
func (st Stage[S]) Run(ctx context.Context, items []*poll.Item) error {
	floor := st.Window.Floor()
	for _, it := range items {
		if it.Swept {
			if err := st.Refresh(ctx, floor); err != nil {
				return err
			}
			break
		}
	}
	for _, it := range items {
		s, ok := st.Window.Subject(it.ID)
		if !ok {
			it.Entity = &entity.Resolution{Err: fmt.Errorf("%s: item %s was not discovered in this cycle", st.Name, it.ID)}
			continue
		}
		e, err := st.Resolve(ctx, s)
		it.Entity = &entity.Resolution{Entity: e, Err: err}
		if err != nil || e == nil {
			continue
		}
		st.Remember(s, e)
		if it.Swept {
			if err := st.Older(ctx, s, e, floor); err != nil {
				it.Entity = &entity.Resolution{Err: err}
				continue
			}
		}
		st.Fill(it, s)
	}
	return nil
}
