package poll

import (
	"context"

	"github.com/fullsend-dev/fullsend/internal/entity"
)

// ResolveEntities sets every item's Entity through the driver's
// resolver of this cycle (EntityResolver.Entities): each item's Ref,
// resolved once, and completed (ItemResolver.Resolved). An error from
// Entities stops the cycle; every other failure is the item's.
func ResolveEntities(ctx context.Context, er EntityResolver, items []*Item) error {
	r, err := er.Entities(ctx, items)
	if err != nil {
		return err
	}
	for _, it := range items {
		it.Entity = resolveItem(ctx, r, it)
	}
	return nil
}

// resolveItem is one item's resolution through r.
func resolveItem(ctx context.Context, r ItemResolver, it *Item) *entity.Resolution {
	ref, err := r.Ref(it)
	if err != nil {
		return &entity.Resolution{Err: err}
	}
	e, err := r.Resolve(ctx, ref)
	if err != nil || e == nil {
		return &entity.Resolution{Entity: e, Err: err}
	}
	it.Entity = &entity.Resolution{Entity: e}
	if err := r.Resolved(ctx, it); err != nil {
		return &entity.Resolution{Err: err}
	}
	return it.Entity
}

// DenialKey labels the entity denials of a cycle: the harness and the
// reason (CycleStats.EntityDenials).
type DenialKey struct{ Harness, Reason string }

// NoteDenials counts the entity denials of one decision.
func (s *CycleStats) NoteDenials(ds []EntityDenial) {
	for _, d := range ds {
		if s.EntityDenials == nil {
			s.EntityDenials = map[DenialKey]int{}
		}
		s.EntityDenials[DenialKey{d.Harness, d.Reason}]++
	}
}
