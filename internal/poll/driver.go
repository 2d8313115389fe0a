// Package poll is the contract between the poll cycle (package
// pollcycle) and the poll input drivers (jira-poll, github-poll,
// gitlab-poll; see ARCHITECTURE.md, "Polling"): Driver, one interface per
// stage, and its Capabilities (a struct of typed fields, nil when the
// driver has not got one: its clock, entity stage, scheduled discovery,
// quarantine record, or no locks at all, NoLocks), declared by each
// driver in its caps.go and read once by the cycle. The drivers discover,
// lock and detect; the cycle selects, decides and coalesces, verifies the
// lock right before dispatch, dispatches and checkpoints.
//
// What the two sides exchange lives here: Item and its transitions
// (item.go), Change, Checkpoint, Discovery, Usage; the Decider the cycle
// decides with (decide.go; CoreDecider adapts the core); scheduled
// discovery's types (schedule.go, sweepswitch.go); the quarantine record
// (quarantine.go); the entity stage's resolver (entitystage.go); the
// output's optional interfaces; CycleStats (stats.go), the one stats
// type; and an Input (input.go), a configured driver as package
// controller, `fullsend poll` itself, runs it.
package poll

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Driver is a poll input driver as the cycle uses it: one interface per
// stage of the cycle, in the order the cycle calls them (Discoverer,
// Locker, Detector, then Checkpointer), plus what the cycle reports
// (Name, Usage) and hands to runs (PollLock), and what else it can do
// (Capabilities). Methods taking a batch of
// items move each item on with Item's transitions (per-item problems:
// Item.Fail, the item is then skipped) and return an error only when the
// whole cycle must stop (for example ErrAuth). Drivers must be safe for
// use by one cycle at a time; items are processed concurrently only
// through the batch methods' own parallelism.
type Driver interface {
	// Name is the input driver type, e.g. "jira-poll".
	Name() string
	Discoverer
	Locker
	Detector
	Checkpointer
	// PollLock is what a run needs to find and maintain the item's lock.
	PollLock(it *Item) *plan.PollLock
	// Usage reports cumulative API calls and rate-limit waits.
	Usage() Usage
	// Capabilities is what the driver can do beyond these stages.
	Capabilities() Capabilities
}

// TrackerClock is the capability (Capabilities.Clock) of a driver that knows its tracker's clock
// (package trackerclock): the cycle stamps and judges intents on it, so
// that pollers whose host clocks disagree agree on an intent's age.
type TrackerClock interface {
	TrackerNow() time.Time
}

// EntityResolver is implemented by a driver whose items are entities of
// one system: the entity stage, between Detect and the first decision.
// The cycle asks for the Entities of items only when some enabled harness
// declares EntitySystem among its entity sources, and only for items
// that have changes to decide (and the swept ones). The ItemResolver
// returned is that cycle's entity.Resolver, backed by what Detect already
// read (the reads combined where the platform allows, before it returns);
// the stage resolves each item's entity through it once
// (ResolveEntities). It must not write; an error stops the whole cycle.
type EntityResolver interface {
	EntitySystem() string // entity.SystemJira, SystemGitHub or SystemGitLab
	Entities(ctx context.Context, items []*Item) (ItemResolver, error)
}

// ItemResolver is one cycle's entity resolver over the items handed to
// EntityResolver.Entities: the entity.Resolver `fullsend dispatch`
// resolves through, over this cycle's reads. Ref names an item's entity
// (an error is the item's resolution: its evaluation is denied); Resolved
// completes an item whose entity Resolve gave (Item.Entity set): with
// scheduled discovery its Item.Receipts and Item.Active, from what the
// driver keeps as receipts (an error is the item's resolution).
type ItemResolver interface {
	entity.Resolver
	Ref(it *Item) (entity.Ref, error)
	Resolved(ctx context.Context, it *Item) error
}

// Discoverer finds the work of a cycle.
type Discoverer interface {
	// Discover finds candidate work items and reports which are eligible:
	// not locked (or the lock is stale) and changed since their checkpoint.
	Discover(ctx context.Context) (*Discovery, error)
	// RemoveStale deletes stale locks found during discovery on items that
	// are not being processed.
	RemoveStale(ctx context.Context, items []*Item) (removed int, err error)
}

// Locker is the poller's side of the lock protocol.
type Locker interface {
	// Recheck runs right before Acquire, after Detect: a driver whose
	// discovery may be stale re-reads the items consistently, skips those
	// now locked or unchanged (Item.Skip) and refreshes the others' Base.
	// It must not move Cutoff past what discovery saw: the changes were
	// detected up to there. It writes nothing.
	Recheck(ctx context.Context, items []*Item) error
	// Acquire writes this poller's lock, listing Item.Planned as its runs,
	// on each item still Selected (Item.Attempt, then Item.Hold when the
	// write succeeded). Existing stale locks are overwritten, which
	// removes them. A takeover of a lock no run claimed (Item.TakenOver)
	// that cannot be written within the claim window of its read is not
	// written (Item.Skip), and one written after it is undone (Item.Lose):
	// a late run may have claimed that lock meanwhile.
	Acquire(ctx context.Context, items []*Item) error
	// Verify re-reads, with a strongly consistent read, the lock and the
	// checkpoint of every held item. An item whose lock no longer holds
	// this poller's id, or is stale, is Lost; a vanished item is Gone.
	// Item.Base is refreshed.
	Verify(ctx context.Context, items []*Item) error
	// Dispatched records on the lock of each item that runs were
	// dispatched (phase dispatched, with Item.Refs). The cycle calls it
	// only for items whose lock, as Acquire wrote it, does not fit the runs
	// started (polllock.Fits): otherwise each run claims an entry of
	// Item.Planned itself when it starts, and the references go to the
	// checkpoint (Checkpoint.Runs). The runs may already
	// have taken the lock over, or even released it: a driver must not
	// bring back a released lock nor undo a run's takeover. Per-item
	// failures go to Item.Fail (logged; the runs are started either way).
	Dispatched(ctx context.Context, items []*Item) error
	// Release deletes this poller's lock from the item. With check, the
	// lock is first re-read and only deleted while it still holds this
	// poller's id.
	Release(ctx context.Context, it *Item, check bool) error
}

// Detector reads what changed.
type Detector interface {
	// Detect fills Item.Changes with the item's changes after Item.Base,
	// up to now at least until Item.Cutoff, oldest first, each mapped to a
	// NormalizedEvent. It runs before the lock is taken and must not
	// write.
	Detect(ctx context.Context, items []*Item) error
}

// Checkpointer records how far an item's changes are handled.
type Checkpointer interface {
	// Advance writes the item's new checkpoint.
	Advance(ctx context.Context, it *Item, cp Checkpoint) error
}

// Usage is a snapshot of a driver's cumulative API usage.
type Usage struct {
	Calls          int
	RateLimitWaits int
	RateBudget     RateBudget // the last budget the tracker reported
}

// RateBudget is the API rate-limit budget a tracker last reported:
// Remaining of Limit until Reset (zero when not reported). Known is false
// when the tracker reported none.
type RateBudget struct {
	Known            bool
	Limit, Remaining int
	Reset            time.Time
}

// CounterUsage is the Usage a driver's request counter holds: the
// requests sent through it and the rate-limit budget their answers last
// reported (httpx.Counter.Rate).
func CounterUsage(c *httpx.Counter) Usage {
	u := Usage{Calls: c.Calls()}
	if rl, ok := c.RateLimit(); ok {
		u.RateBudget = RateBudget{Known: true, Limit: rl.Limit, Remaining: rl.Remaining, Reset: rl.Reset}
	}
	return u
}

// Discovery is what Discover found.
type Discovery struct {
	Candidates int     // distinct work items the queries returned
	Eligible   []*Item // unlocked (or stale-locked) and changed
	Stale      []*Item // stale locks on items that are not eligible
	// Swept are candidates of scheduled discovery (the driver's sweep of
	// its entities), not locked, with no change to decide, their Entity
	// and Receipts set: the cycle makes those whose entity is due eligible.
	Swept   []*Item
	Corrupt int // corrupt lock or checkpoint values seen (logged, treated safely)
	Cursor  CursorReport
	// Ordered: the driver already chose this poller's share of the work;
	// Select takes the longest-waiting eligible items without shuffling.
	Ordered bool
}

// CursorReport is what a driver with a shared discovery cursor reports
// about it (docs/polling.md, "Discovery cursor"); zero without one.
type CursorReport struct {
	// State: "used" (discovery started at the cursor), "absent" (none
	// yet: full discovery), "corrupt" (treated as absent), "fallback" (the
	// cursor could not be read or written: discovery as without one).
	State string
	At    time.Time     // the cursor position after discovery
	Lag   time.Duration // how far At trails the poller's clock
	Moved bool          // the discovery wrote a new position
	// Shared counts eligible items left to the other pollers (another
	// poller is preferred for them: "Sharing work between pollers").
	Shared int
}

// Checkpoint is how far an item's changes are handled. At covers every
// harness except those listed in Retry, whose dispatch failed while
// another harness's succeeded: they stay at their older position so that
// the next cycle retries only them. A zero At means nothing was handled
// yet (the item's creation is its first change).
//
// Intents are the dispatches a poller was about to make (per harness,
// written right before dispatching, cleared by the checkpoint after it);
// a driver that cannot store them drops them, and the cycle then falls
// back to dispatching again after a crash (docs/polling.md, "Delivery
// contract").
//
// ID, with At, is the checkpoint's position (PosAt): the changes at At
// whose id is at most ID are handled too. A driver whose changes carry no
// ids (jira-poll) leaves it 0, and At then covers every change at At.
//
// Runs are the runs the checkpoint's dispatch started (set only on the
// checkpoint after a dispatch): they are not recorded on the lock
// unless it does not fit them (Locker.Dispatched), so a driver keeps them with the checkpoint for the
// operator (`poll cancel`, `fullsend status`) until the run claims the
// lock.
type Checkpoint struct {
	At      time.Time
	ID      int64
	Retry   map[string]time.Time
	Intents map[string]lastcheck.Intent
	Runs    []plan.Ref
}

// Pos is the position of harness h.
func (c Checkpoint) Pos(h string) time.Time {
	if t, ok := c.Retry[h]; ok && t.Before(c.At) {
		return t
	}
	return c.At
}

// Min is the oldest position of any harness: detection starts after it.
func (c Checkpoint) Min() time.Time {
	m := c.At
	for _, t := range c.Retry {
		if t.Before(m) {
			m = t
		}
	}
	return m
}

// PosAt is the checkpoint's position (At, then ID).
func (c Checkpoint) PosAt() changepos.Pos { return changepos.Pos{At: c.At, ID: c.ID} }

// PosOf is harness h's position: its Retry time when that is older than
// At (a retry position names no id), else PosAt.
func (c Checkpoint) PosOf(h string) changepos.Pos {
	if t, ok := c.Retry[h]; ok && t.Before(c.At) {
		return changepos.At(t)
	}
	return c.PosAt()
}

// MinPos is the oldest position of any harness: detection starts after it.
func (c Checkpoint) MinPos() changepos.Pos {
	if m := c.Min(); m.Before(c.At) {
		return changepos.At(m)
	}
	return c.PosAt()
}

// Covers reports whether c is a checkpoint past every change up to
// newest: no harness left to retry, no dispatch of unknown outcome
// (Intents: the cycle also calls Advance to record intents before
// dispatching, and to clear those of refused dispatches), at or after
// newest. A backstop takes its item as handled only then.
func (c Checkpoint) Covers(newest changepos.Pos) bool {
	return !c.Pending() && len(c.Intents) == 0 && !newest.After(c.PosAt())
}

// Pending reports whether some harness still has to retry.
func (c Checkpoint) Pending() bool { return c.Min().Before(c.At) }

// Clone returns a deep copy.
func (c Checkpoint) Clone() Checkpoint {
	c.Retry = maps.Clone(c.Retry)
	c.Intents = maps.Clone(c.Intents)
	c.Runs = slices.Clone(c.Runs)
	return c
}

// Errors a driver wraps (with %w) to tell the cycle how to react.
var (
	// ErrAuth: the tracker refused the credentials (401/403). The cycle
	// stops at once, writes nothing more and rolls back its locks.
	ErrAuth = errors.New("not authorized")
	// ErrQuery: a configured query was rejected (e.g. invalid JQL).
	ErrQuery = errors.New("query rejected")
)

// IsStop reports whether err must stop the whole cycle (ErrAuth, ErrQuery).
func IsStop(err error) bool { return errors.Is(err, ErrAuth) || errors.Is(err, ErrQuery) }
