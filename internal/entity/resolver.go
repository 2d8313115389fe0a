package entity

import (
	"context"
	"errors"
	"time"
)

// Resolver reads the entity a Ref names from its platform, through the
// shared HTTP stack and pacing of the caller's client: its current state,
// its bounded activity (Bound), its Version (ComputeVersion), and for
// every activity element the actor's current role (event.Role, resolved
// now, never taken from history), its kind (human or bot) and whether it
// is the entity's author. An error means the entity or its activity could
// not be enumerated completely: evaluation is then denied
// (authz.ErrEnumeration); a complete enumeration may yield no activity.
// Implementations live beside the platform's client (one per system,
// internal/resolvers/..., used by `fullsend dispatch`); a poll driver
// gives one per cycle over what that cycle already read
// (poll.ItemResolver). They must be safe for concurrent use.
type Resolver interface {
	Resolve(ctx context.Context, ref Ref) (*Entity, error)
}

// Resolution is the outcome of resolving an entity: the entity, or why
// none could be had (a failed, unavailable or incomplete enumeration).
type Resolution struct {
	Entity *Entity
	Err    error
	// Receipts gives, per harness name, the receipt that harness's
	// trigger sees as entity.receipt (its last successful run on the
	// entity); a harness absent from it sees null.
	Receipts map[string]*Receipt
	// Now is the time of the evaluation on the tracker's clock, the
	// triggers' `now`; zero when the caller has no clock (time
	// conditions are then false).
	Now time.Time
}

// ErrNotFound marks a Ref that names no entity on its platform (deleted,
// or never there).
var ErrNotFound = errors.New("entity: not found")
