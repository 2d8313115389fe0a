package poll

import (
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
)

// State is where a work item stands in one cycle. Discovery hands out
// items in StateSelected; the driver and the cycle move them on only
// through the named transitions of Item (Skip, Hold, Lose, Vanish, Fail)
// and the cycle's release.
//
//	Selected ─Skip→ Skipped          (a consistent read showed it locked or unchanged, or a takeover could not be written in time)
//	Selected ─Hold→ Held             (after Attempt: the lock write succeeded)
//	Selected ─Lose→ Lost             (after Attempt: a takeover written too late, undone)
//	Held     ─Lose→ Lost             (another poller holds the lock, or ours went stale)
//	any      ─Vanish→ Gone           (the item was deleted)
//	any      ─Fail→ Failed           (a per-item error, Item.Err; the item is skipped)
//	Held     ─release→ Released      (the cycle removed its lock)
//
// Attempt records, whatever the state, that a lock write was sent: a
// failed write (Attempted and Failed) may have landed anyway.
type State uint8

// States of an item; see State for the transitions.
const (
	StateSelected State = iota
	StateSkipped
	StateHeld
	StateLost
	StateGone
	StateFailed
	StateReleased
)

var stateNames = [...]string{"selected", "skipped", "held", "lost", "gone", "failed", "released"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Item is one work item in a cycle. The cycle reads and writes the
// exported fields as documented; its state changes only through the
// transitions. Per-item data a driver needs is the driver's to keep
// (keyed by ID).
type Item struct {
	ID string // e.g. PROJ-123
	// Base is the item's checkpoint: changes at or before Base.PosOf(h) are
	// already handled for harness h.
	Base Checkpoint
	// Cutoff is the newest change time the discovery saw. Changes after it
	// are left for the next cycle, so that the checkpoint never passes a
	// change that one detection read saw and another did not.
	Cutoff time.Time
	// Waiting orders selection: the earlier, the longer the item has
	// waited (its checkpoint, or its creation without one).
	Waiting time.Time
	// StaleLock is set when discovery found a stale lock on the item (or
	// one no run claimed within the pending TTL), which locking replaces.
	StaleLock bool
	// TakenOver is set when the lock the cycle replaces was never claimed
	// by a run (polllock.Lock.Owed): the runs dispatched under it cannot
	// start any more (their lock check fails), so the item's checkpoint
	// was rewound to give their changes back.
	TakenOver bool
	// GoneLocks, with TakenOver, is the ids of the locks whose runs cannot
	// start any more (polllock.Lock.Gone): intents written under one of
	// them are dispatched again without asking the platform; other intents
	// (of a lock whose runs did start) are looked up as usual.
	GoneLocks []string
	Changes   []Change
	// Entity is the item's entity as the entity stage resolved it
	// (EntityResolver), shared by every change of the item and every
	// entity-source harness; nil when no enabled harness declares the
	// driver's system or the item has no changes to decide.
	Entity *entity.Resolution
	// Planned is the entries the lock is written with: one without an id
	// per run the cycle expects to dispatch (polllock.Placeholders), set
	// before Acquire; each run claims one when it starts.
	Planned []plan.Ref
	Refs    []plan.Ref // the runs dispatched for the item (set before Dispatched)
	// Receipts is the item's handled-state record (receipts.Receipts), as
	// discovery and then the verification read it; nil when the driver
	// keeps none.
	Receipts receipts.Receipts
	// Active is, per harness, set when a run of the harness's scope on
	// the item is active or pending by the driver's record (a backstop
	// whose run records are the receipts); the reconcile rule then waits.
	// Drivers with a poll lock leave it nil: the lock stands for it.
	Active map[string]bool
	// Swept is set on an item scheduled discovery brought in without a
	// change (Discovery.Swept): its entity is due for some harness.
	Swept bool
	// EntityRuns is, per entity-source harness, the entity version and
	// attempt its run is dispatched for (set before Acquire, written in
	// the lock for the run's receipt: polllock.Lock.Entity).
	EntityRuns map[string]polllock.EntityRun

	state     State
	attempted bool
	err       error
}

// Window is the changes a cycle offers to the core: those after the
// checkpoint's oldest position (by time, then id: InWindow) and not after
// the cutoff.
func (it *Item) Window() []Change {
	var out []Change
	for _, c := range it.Changes {
		if it.InWindow(c) {
			out = append(out, c)
		}
	}
	return out
}

// InWindow reports whether c is in the item's window: after the
// checkpoint's oldest position and not after the cutoff. A driver's
// Detect keeps the same changes.
func (it *Item) InWindow(c Change) bool {
	return c.Pos().After(it.Base.MinPos()) && !c.At.After(it.Cutoff)
}

// WindowFilter is a driver's Detect filter of an item's changes by
// position, before it maps them (Item.Filter): Keep takes those in the
// window, and Later reports whether one after the checkpoint was left for
// a later cycle (after the cutoff).
type WindowFilter struct {
	it    *Item
	later bool
}

// Filter returns the window filter of it.
func (it *Item) Filter() *WindowFilter { return &WindowFilter{it: it} }

// Keep reports whether the change at pos is in the item's window.
func (f *WindowFilter) Keep(pos changepos.Pos) bool {
	c := Change{At: pos.At, ID: pos.ID}
	in := f.it.InWindow(c)
	f.later = f.later || !in && pos.After(f.it.Base.MinPos())
	return in
}

// Later reports whether Keep refused a change after the checkpoint.
func (f *WindowFilter) Later() bool { return f.later }

// State is the item's current state.
func (it *Item) State() State { return it.state }

// Attempted reports whether a lock write was sent for the item.
func (it *Item) Attempted() bool { return it.attempted }

// Err is the per-item failure that made the item Failed (nil otherwise).
func (it *Item) Err() error { return it.err }

// Skip: a consistent read before locking showed the item locked by
// another poller or unchanged; nothing is written on it.
func (it *Item) Skip() { it.state = StateSkipped }

// Attempt records that a lock write is being sent.
func (it *Item) Attempt() { it.attempted = true }

// Hold: this poller's lock is on the item.
func (it *Item) Hold() { it.state = StateHeld }

// Lose: another poller holds the item's lock, or ours went stale.
func (it *Item) Lose() { it.state = StateLost }

// Vanish: the item was deleted mid-cycle.
func (it *Item) Vanish() { it.state = StateGone }

// Fail records a per-item failure; the item is skipped (a lock the cycle
// may have written is removed where it still holds this poller's id).
func (it *Item) Fail(err error) { it.state, it.err = StateFailed, err }

// MarkReleased: the cycle removed its lock from a held item.
func (it *Item) MarkReleased() {
	if it.state == StateHeld {
		it.state = StateReleased
	}
}

// Change is one detected change: when it happened (the tracker's clock),
// the platform's id of the change when it has one, and the
// NormalizedEvent it maps to. Its position (Pos: time, then id) orders it
// among the item's changes and against the checkpoint, and keys its run
// (changepos.Key): changes stamped with one instant (GitHub
// and GitLab stamp at the second) are told apart by their ids.
type Change struct {
	At time.Time
	// ID is the platform's id of the change (a comment, note, review or
	// label event id, as changepos.Pos); 0 without one (an opening,
	// a Jira change).
	ID    int64
	Event *event.Event
	// Consumed names the harnesses that already received the change in
	// a run in progress (steering, docs/steering.md): it starts no run of
	// theirs, as if they had handled it.
	Consumed []string
}

// Pos is the change's position.
func (c Change) Pos() changepos.Pos { return changepos.Pos{At: c.At, ID: c.ID} }
