package poll

import (
	"context"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// Schedule configures scheduled discovery (docs/entities.md,
// "Reconciliation"): every item whose entity was resolved is also
// evaluated with no event for the entity-source harnesses of its system,
// and the reconcile rule (package reconcile) decides, against the item's
// receipts, which matches are due. Nil Options.Schedule: none.
type Schedule struct {
	Decider ScheduledDecider
	// Policy is authorization.scheduled_discovery as configured: only
	// "allow" lets a scheduled run start (the Decider denies the others
	// too; the cycle checks again).
	Policy string
	// Invoker names the trusted origin of the scheduled runs: the poller
	// ("jira-poll:<poller id>").
	Invoker string
	Forge   string // config forge, for scope keys
	// Cadence spaces the evaluations of each harness (entity.every), on
	// the tracker's clock (the cycle's Options.Now), since it is kept in
	// the state directory for the next process, perhaps on another host;
	// nil: every cycle.
	Cadence *reconcile.Cadence
	// Notify, when set, is told of every entity version given up on, once
	// it is recorded (a comment on the item, a page).
	Notify func(ctx context.Context, q EntityQuarantine)
}

// ScheduledDecider decides an entity with no event: the trigger of every
// entity-source harness of its system, after the activity filter (the
// CLI adapts core.Engine.DecideEntity). Pure.
type ScheduledDecider interface {
	DecideScheduled(res entity.Resolution) ScheduledDecision
}

// ScheduledDecision is the outcome of DecideScheduled.
type ScheduledDecision struct {
	Verdict, Reason string
	Matched         []ScheduledMatch
	// OverlayErrors names the matched harnesses whose overlays could not
	// be evaluated: their runs have the harness's own settings.
	OverlayErrors []string
}

// ScheduledMatch is one entity-source harness whose trigger matched the
// entity with no event.
type ScheduledMatch struct {
	Harness, Role, Workflow string
	Revision                string // the harness file's revision
	MinRole                 string
	Every                   time.Duration
	Retry                   reconcile.Policy
	// Seen is the entity as its trigger saw it (the retained activity).
	Seen *entity.Entity
}

// EntityQuarantine is an entity version a harness gave up on: its runs
// ended without success entity.retry.max times after the first.
type EntityQuarantine struct {
	Item     string
	Harness  string
	Entity   *entity.Entity
	Attempts int
	Reason   string
}

// Sweeper is the capability of drivers that can sweep their entities for
// scheduled discovery (Discovery.Swept): the cycle enables it when
// scheduled discovery is on; until then the driver spends nothing on it.
type Sweeper interface {
	EnableSweep()
}

// ReceiptKeeper is the capability of drivers that keep the receipts record
// on their items (receipts.Receipts). The cycle holds the item's lock
// when it calls them.
type ReceiptKeeper interface {
	// Tried records, per harness, one more run dispatched for the entity
	// version of runs (receipts.Receipts.Tried), before they are dispatched.
	Tried(ctx context.Context, it *Item, runs map[string]polllock.EntityRun) error
	// GaveUp marks harness's tries of version as quarantined.
	GaveUp(ctx context.Context, it *Item, harness, version string) error
}

// Allows reports whether s is set and its policy allows scheduled runs.
func (s *Schedule) Allows() bool {
	return s != nil && s.Policy == config.ScheduledAllow
}

// CadenceKeeper is the capability of drivers that keep the cadence of their
// scheduled evaluations (entity.every) themselves, in their state, so
// that a one-shot process honours it; the others share the controller's
// (in memory).
type CadenceKeeper interface {
	Cadence() *reconcile.Cadence
}

// PollerIdentity is the capability of drivers that run under a poller id of
// their own (one restored from their state): the invoker of their
// scheduled runs (Schedule.Invoker) names it.
type PollerIdentity interface {
	PollerID() string
}
