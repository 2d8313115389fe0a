package pollcycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/google/uuid"
)

// Defaults used when an Options field is zero.
const (
	DefaultConcurrency = 4
	DefaultJitterMin   = 500 * time.Millisecond
	DefaultJitterMax   = 1500 * time.Millisecond
)

// Options configure one poll cycle.
type Options struct {
	Driver poll.Driver
	Core   poll.Decider
	// Output starts the runs; unused (may be nil) in a dry run.
	Output output.Driver
	// Validate checks every detected event before the core sees it
	// ((*event.Event).Validate); nil skips validation.
	Validate func(*event.Event) error
	// N is the number of items locked per cycle. A driver without locks
	// (NoLocks) takes every due item the API budget allows instead
	// (Requests, budget.go).
	N int
	// Requests is the most requests a cycle of a driver without locks
	// makes (its Usage.Calls, and RunCost for each run it hands to the
	// output) before it leaves the remaining items to the next cycle; 0
	// means DefaultRequests. Drivers with locks ignore it.
	Requests int
	// Concurrency bounds the per-item calls the cycle makes in parallel.
	Concurrency int
	// JitterMin and JitterMax bound the one wait between writing locks and
	// verifying them; the time this cycle took from its consistent re-read
	// to the end of its lock writes is added, so that the wait outlasts
	// another poller's same gap when the site is slow or the client paces
	// its calls. Negative JitterMax disables the wait (tests only).
	JitterMin, JitterMax time.Duration
	// DryRun discovers, detects and decides without writing anything; the
	// runs that would be dispatched are returned in Result.Planned.
	DryRun   bool
	Log      *slog.Logger
	Observer poll.Observer
	// Rand drives selection and jitter; nil uses a random seed.
	Rand *rand.Rand
	// Sleep waits d or until ctx ends (tests replace it).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the tracker's clock: it stamps dispatch intents and judges
	// their settle time. Nil uses the driver's clock when it has one
	// (Capabilities.Clock), else time.Now.
	Now func() time.Time
	// ClaimWait is the least wait before verifying a lock taken over from
	// runs that never claimed it (polllock.ClaimWaitFor the stale
	// threshold); 0 means polllock.ClaimWait.
	ClaimWait time.Duration
	// Schedule enables scheduled discovery (nil: none).
	Schedule *poll.Schedule
	// IntentSettle is how old an interrupted dispatch's intent must be
	// before "the platform has no such run" is believed: a younger one may
	// still be in flight (its poller slowed down past the lock's staleness,
	// or the platform not yet listing the run), so its item waits for a
	// later cycle. 0 means DefaultIntentSettle; negative disables it.
	IntentSettle time.Duration
	// Feedback writes the acknowledgments of started runs and says when a
	// change was quarantined (package feedback); nil writes none.
	Feedback *feedback.Notifier
}

// DefaultIntentSettle is the default of Options.IntentSettle: longer than
// a dispatch call with its retries takes, and than the platforms' listing lag.
const DefaultIntentSettle = 2 * time.Minute

// Result is what one cycle did.
type Result struct {
	Stats   poll.CycleStats
	Planned []plan.Run // dry run only: the runs a real cycle would dispatch
}

type cycle struct {
	o     Options
	caps  poll.Capabilities  // the driver's, read once
	out   outputCapabilities // the output's, read once
	log   *slog.Logger
	st    poll.CycleStats
	begin poll.Usage // the driver's usage when the cycle began
	// refused is the first dispatch the output's platform refused for
	// its credentials (output.ErrCredentials): the cycle then fails with
	// ErrAuth, like refused tracker credentials.
	refused error
	// validated memoizes Options.Validate per event: the lock plan and
	// the decision see the same events (decideItem runs sequentially).
	validated map[*event.Event]error
	// schedDone holds the scheduled evaluations of the cycle (CadenceKey)
	// with the entity.every they were decided under.
	schedMu   sync.Mutex
	schedDone map[string]time.Duration
	// acks are the runs started and notices the changes quarantined, said
	// on their items after the checkpoints (feedback.go), under fbMu.
	fbMu    sync.Mutex
	acks    []feedback.Started
	notices []feedback.Notice
}

// validate is Options.Validate, once per event and cycle; nil when the
// cycle does not validate.
func (c *cycle) validate(ev *event.Event) error {
	if c.o.Validate == nil {
		return nil
	}
	if err, ok := c.validated[ev]; ok {
		return err
	}
	if c.validated == nil {
		c.validated = map[*event.Event]error{}
	}
	err := c.o.Validate(ev)
	c.validated[ev] = err
	return err
}

// Run executes one cycle. Cancelling ctx asks the cycle to stop: it stops
// starting new work, rolls back the locks of items not yet dispatched,
// finishes a dispatch already under way (with its checkpoint) and returns
// with Stats.Interrupted set and a nil error. An error means the cycle
// failed as a whole (discovery failed, ErrAuth, ErrQuery) or, matching
// ErrItemsFailed (*ItemsError), that it completed with failed items or
// quarantined changes; it is also in Stats.Error. The stats are logged as one record and sent to the Observer.
func Run(ctx context.Context, o Options) (Result, error) {
	caps := o.Driver.Capabilities()
	o = withDefaults(o, caps)
	c := &cycle{o: o, caps: caps, out: capabilitiesOf(o.Output)}
	c.st.CycleID = uuid.NewString()
	c.st.Driver = o.Driver.Name()
	if o.Output != nil {
		c.st.Output = o.Output.Name()
	}
	c.st.DryRun = o.DryRun
	if o.DryRun {
		ctx = poll.WithDryRun(ctx)
	}
	c.log = o.Log.With("cycle_id", c.st.CycleID, "driver", c.st.Driver)
	start := time.Now()
	before := o.Driver.Usage()
	c.begin = before
	planned, err := c.run(ctx)
	c.doneCadence()
	if err == nil && c.refused != nil {
		err = fmt.Errorf("dispatching: %w: %w", poll.ErrAuth, c.refused)
	}
	if err != nil && ctx.Err() != nil && !errors.Is(err, poll.ErrAuth) && !errors.Is(err, poll.ErrQuery) {
		c.st.Interrupted, err = true, nil
	}
	if err == nil {
		err = c.st.ItemsError() // per-item failures fail the cycle too
	}
	after := o.Driver.Usage()
	c.st.APICalls = after.Calls - before.Calls
	c.st.RateLimitWaits = after.RateLimitWaits - before.RateLimitWaits
	c.st.RateBudget = after.RateBudget
	c.st.Duration = time.Since(start)
	if err != nil {
		c.st.Error = err.Error()
	}
	c.st.Log(o.Log)
	if o.Observer != nil {
		o.Observer(c.st)
	}
	return Result{Stats: c.st, Planned: planned}, err
}

func withDefaults(o Options, caps poll.Capabilities) Options {
	if o.N <= 0 {
		o.N = poll.DefaultN
	}
	if o.Requests <= 0 {
		o.Requests = DefaultRequests
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.JitterMin == 0 && o.JitterMax == 0 {
		o.JitterMin, o.JitterMax = DefaultJitterMin, DefaultJitterMax
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Rand == nil {
		o.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if o.Sleep == nil {
		o.Sleep = httpx.Sleep
	}
	if o.Now == nil {
		o.Now = time.Now
		if tc := caps.Clock; tc != nil {
			o.Now = tc.TrackerNow
		}
	}
	if o.ClaimWait <= 0 {
		o.ClaimWait = polllock.ClaimWait
	}
	if o.IntentSettle == 0 {
		o.IntentSettle = DefaultIntentSettle
	}
	return o
}

// jitter is the wait between the lock writes and their verification: a
// random time between JitterMin and JitterMax plus gap, the time from the
// consistent re-read to the end of the lock writes.
func (c *cycle) jitter(gap time.Duration) time.Duration {
	lo, hi := c.o.JitterMin, c.o.JitterMax
	if hi < 0 {
		return 0
	}
	extra := max(gap, 0)
	if hi <= lo {
		return lo + extra
	}
	return lo + time.Duration(c.o.Rand.Int64N(int64(hi-lo))) + extra
}

// discover is the discovery stage: the driver's sweep switched on when
// scheduled discovery is, then its Discover, counted.
func (c *cycle) discover(ctx context.Context) (*poll.Discovery, error) {
	d := c.o.Driver
	if sw := c.caps.Scheduled; sw != nil && c.o.Schedule.Allows() {
		sw.EnableSweep()
	}
	disc, err := d.Discover(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s discovery: %w", d.Name(), err)
	}
	c.st.Candidates, c.st.Eligible, c.st.Corrupt = disc.Candidates, len(disc.Eligible), disc.Corrupt
	c.st.Cursor = disc.Cursor
	return disc, nil
}

// choose is the selection stage of a driver with locks: N of the
// eligible items (Select), the longest-waiting ones when the driver
// already ordered its share of the work.
func (c *cycle) choose(eligible []*poll.Item, ordered bool) []*poll.Item {
	rng := c.o.Rand
	if ordered {
		rng = nil
	}
	sel := poll.Select(eligible, c.o.N, rng)
	c.st.Selected = len(sel)
	return sel
}

// removeStale deletes the stale locks discovery found on items the cycle
// does not work on.
func (c *cycle) removeStale(ctx context.Context, stale []*poll.Item) error {
	if len(stale) == 0 || ctx.Err() != nil {
		return nil
	}
	n, err := c.o.Driver.RemoveStale(ctx, stale)
	c.st.LocksStaleRemoved += n
	return err
}

// detect is the detection stage: the driver fills each item's changes;
// the items whose detection failed, or that vanished, are dropped.
func (c *cycle) detect(ctx, keep context.Context, sel []*poll.Item) ([]*poll.Item, error) {
	if err := c.o.Driver.Detect(ctx, sel); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.dropFailed(keep, sel), nil
}

// decide is the decision stage, on the verified checkpoints of the held
// items: each item's changes (decideItem), then its entity with no event
// (scheduleItem); a lost lock is counted and left.
func (c *cycle) decide(keep context.Context, held []*poll.Item) []itemPlan {
	var plans []itemPlan
	for _, it := range held {
		if c.drop(keep, it, "item skipped") {
			continue
		}
		switch it.State() {
		case poll.StateLost:
			c.st.LocksLost++
		case poll.StateHeld:
			c.st.LocksAcquired++
			p := decideItem(it, c.o.Core, c.validate, c.log, &c.st)
			c.scheduleItem(&p, true, it.EntityRuns, c.log, &c.st)
			plans = append(plans, p)
		}
	}
	return plans
}

// recheck re-reads sel consistently before anything is written on it and
// returns the items still to work on; the others are counted.
func (c *cycle) recheck(ctx context.Context, sel []*poll.Item) ([]*poll.Item, error) {
	if err := c.o.Driver.Recheck(ctx, sel); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var todo []*poll.Item
	for _, it := range sel {
		switch it.State() {
		case poll.StateSkipped:
			c.st.LocksSkipped++
		case poll.StateSelected:
			todo = append(todo, it)
		default:
			c.drop(ctx, it, "item skipped: could not re-read it")
		}
	}
	return todo, nil
}

// planLocks sets the entries each item's lock is written with: one per
// run a first decision on the detected changes calls for
// (polllock.Placeholders; none for an output that only prints a plan).
// The decision is made again on the verified checkpoint right before
// dispatch; when the runs started differ, the record step corrects the
// lock (Locker.Dispatched).
func (c *cycle) planLocks(items []*poll.Item) {
	name := c.o.Output.Name()
	if polllock.PlanOnly(name) {
		return
	}
	var scratch poll.CycleStats // counted once, by the decision that dispatches
	quiet := slog.New(slog.DiscardHandler)
	for _, it := range items {
		p := decideItem(it, c.o.Core, c.validate, quiet, &scratch)
		c.planScheduled(&p, quiet, &scratch)
		if !p.killed {
			it.Planned = polllock.Placeholders(name, len(p.runs))
		}
	}
}

// lock writes this poller's lock on items and counts the outcome. On a
// stop (error or ctx) every lock written is rolled back. A lock write that
// failed after it was sent may have landed anyway (a timeout, a 5xx from
// a proxy): it is removed where it holds this poller's id.
func (c *cycle) lock(ctx, keep context.Context, items []*poll.Item) error {
	err := c.o.Driver.Acquire(ctx, items)
	var unsure []*poll.Item
	for _, it := range items {
		switch it.State() {
		case poll.StateSkipped: // a takeover that could not be written within the claim window
			c.st.LocksSkipped++
		case poll.StateLost: // a takeover written too late: the lock it replaced was put back
			c.st.LocksLost++
		case poll.StateGone:
			c.st.ItemsGone++
		case poll.StateFailed:
			c.st.ItemsFailed++
			c.log.Warn("item skipped: could not lock it", "item", it.ID, "error", it.Err().Error())
			if it.Attempted() {
				unsure = append(unsure, it)
			}
		case poll.StateHeld:
			if it.StaleLock {
				c.st.LocksStaleRemoved++
			}
		}
		if it.Attempted() {
			c.st.LocksAttempted++
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		c.rollback(keep, items)
		return err
	}
	poll.Each(c.o.Concurrency, unsure, func(it *poll.Item) { c.release(keep, it, true) })
	return nil
}

// verify waits the one jitter of the cycle (gap: the time from the
// consistent re-read to the end of the lock writes) and re-reads the locks
// of the held items consistently right before dispatch. On a stop the
// locks are rolled back.
func (c *cycle) verify(ctx, keep context.Context, held []*poll.Item, gap time.Duration) ([]*poll.Item, error) {
	err := c.o.Sleep(ctx, c.verifyWait(held, gap))
	if err == nil {
		err = c.o.Driver.Verify(ctx, held)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		c.rollback(keep, held)
		return nil, err
	}
	return held, nil
}

// verifyWait is the jitter, and at least Options.ClaimWait when the
// cycle took over a lock no run had claimed (Item.TakenOver): a run that
// claims that lock late waits as long between its write and its re-read,
// so that of the claim and the takeover one always sees the other. A
// driver without locks wrote none and waits nothing.
func (c *cycle) verifyWait(held []*poll.Item, gap time.Duration) time.Duration {
	if c.caps.NoLocks != nil {
		return 0 // no lock was written: nothing to wait for
	}
	d := c.jitter(gap)
	if c.o.JitterMax >= 0 && slices.ContainsFunc(held, func(it *poll.Item) bool { return it.TakenOver }) {
		d = max(d, c.o.ClaimWait)
	}
	return d
}

// inState returns the items in state s.
func (c *cycle) inState(items []*poll.Item, s poll.State) []*poll.Item {
	var out []*poll.Item
	for _, it := range items {
		if it.State() == s {
			out = append(out, it)
		}
	}
	return out
}

// dropFailed counts the items whose detection failed or that vanished and
// returns the rest.
func (c *cycle) dropFailed(ctx context.Context, items []*poll.Item) []*poll.Item {
	var out []*poll.Item
	for _, it := range items {
		if !c.drop(ctx, it, "item skipped: change detection failed") {
			out = append(out, it)
		}
	}
	return out
}

// drop counts a gone or failed item and releases the lock a failed one may
// carry (why is the log message); it reports whether it was either.
func (c *cycle) drop(ctx context.Context, it *poll.Item, why string) bool {
	switch it.State() {
	case poll.StateGone:
		c.st.ItemsGone++
	case poll.StateFailed:
		c.st.ItemsFailed++
		c.log.Warn(why, "item", it.ID, "error", it.Err().Error())
		if it.Attempted() {
			c.release(ctx, it, true)
		}
	default:
		return false
	}
	return true
}

// rollback removes every lock this cycle wrote on items (only where it
// still holds this poller's id).
func (c *cycle) rollback(ctx context.Context, items []*poll.Item) {
	var todo []*poll.Item
	for _, it := range items {
		if st := it.State(); it.Attempted() && st != poll.StateGone && st != poll.StateLost {
			todo = append(todo, it)
		}
	}
	poll.Each(c.o.Concurrency, todo, func(it *poll.Item) { c.release(ctx, it, true) })
}

func (c *cycle) release(ctx context.Context, it *poll.Item, check bool) {
	if err := c.o.Driver.Release(ctx, it, check); err != nil {
		c.log.Error("could not remove poll lock; it expires after the stale threshold", "item", it.ID, "error", err.Error())
	}
	it.MarkReleased()
}

// unlocked is where a dry run's lock would live, without a lock id: no
// lock was taken, so the plan must not show one.
func unlocked(pl *plan.PollLock) *plan.PollLock {
	if pl == nil {
		return nil
	}
	cp := *pl
	cp.ID = ""
	return &cp
}
