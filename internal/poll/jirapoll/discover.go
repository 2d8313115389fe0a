package jirapoll

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// searchFields are the issue fields discovery and detection read.
var searchFields = []string{"summary", "labels", "created", "updated", "status", "reporter", "creator", "project"}

// issueState is the driver's data on one item of the current cycle.
type issueState struct {
	issue jira.Issue
	id    int64
	// lockID is the id of the lock this cycle wrote on the issue
	// (polllock.NewLockID), "" before Acquire.
	lockID string
	// giveBack is set when the lock this cycle took over was owed a
	// give-back (judge): the positions its checkpoint was rewound to.
	// owed stays true until a checkpoint carrying them is written: until
	// then, removing this cycle's own lock (which carries them in its
	// From) writes that checkpoint first (Release).
	giveBack *polllock.Position
	owed     bool
}

// keep records the state of the items a discovery returns, replacing the
// previous cycle's.
func (d *Driver) keep(states map[string]*issueState) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.issues = states
}

// issue is the state of item key in the current cycle. Items come from
// this driver's latest Discover; any other is a programming error.
func (d *Driver) issue(key string) *issueState {
	d.mu.Lock()
	defer d.mu.Unlock()
	st, ok := d.issues[key]
	if !ok {
		panic("jirapoll: item " + key + " was not discovered by this driver")
	}
	return st
}

// discover is Discover without the sweep (sweep.go). With the shared cursor (docs/polling.md,
// "Discovery cursor") it reads the cursor, asks each query for the issues
// updated since the cursor, oldest first, moves the
// cursor when what it saw allows, and keeps for this poller the eligible
// issues it is preferred for ("Sharing work between pollers"). Without a
// cursor it runs every query newest-updated first. Either way the lock
// and lastCheck properties come inline, so that locked and unchanged
// issues cost no further call.
func (d *Driver) discover(ctx context.Context) (*poll.Discovery, error) {
	start := d.o.Now()
	d.ent.begin()
	disc := &poll.Discovery{}
	seen := map[string]*issueState{}
	defer func() { d.keep(seen) }()
	if !d.cursorOn() {
		if d.cur.off {
			disc.Cursor.State = cursorFallback
		}
		return disc, d.discoverNewest(ctx, d.clockedAt(start), disc, seen)
	}
	cur, state := d.readCursor(ctx)
	// The search starts now, after the cursor read, whose answer has set
	// Jira's clock in a fresh process (start taken above may be the
	// host's).
	start = d.o.Now()
	disc.Cursor.State = state
	if state == cursorFallback {
		return disc, d.discoverNewest(ctx, start, disc, seen)
	}
	var since cursor.Pos
	var held map[string]time.Time
	if cur != nil {
		since, held = cur.Pos(), cur.Held
		disc.Cursor.At = cur.At
	}
	var t tally
	for qi, q := range d.o.Queries {
		where, _ := jira.SplitOrderBy(q)
		full, err := d.passFrom(ctx, passSpec{qi: qi, q: q, where: where, asc: true, since: since}, held, start, disc, seen, &t)
		if err != nil {
			return nil, err
		}
		if full && len(disc.Eligible) < d.o.N {
			// MaxPages full pages from the cursor: something old holds
			// it back; newer changes must not wait behind it.
			if _, err := d.pass(ctx, passSpec{qi: qi, q: q, where: where}, start, disc, seen, nil); err != nil {
				return nil, err
			}
		}
	}
	d.share(cur, disc, start)
	d.advance(ctx, cur, &t, start, disc)
	if !disc.Cursor.At.IsZero() {
		disc.Cursor.Lag = d.o.Now().Sub(disc.Cursor.At)
	}
	return disc, nil
}

// clockedAt is t when Jira's clock was known when t was read, else the
// zero time: the pass then judges its issues at the time of the first
// answer, which sets the clock.
func (d *Driver) clockedAt(t time.Time) time.Time {
	if d.o.ClockKnown != nil && !d.o.ClockKnown() {
		return time.Time{}
	}
	return t
}

// discoverNewest is discovery without a cursor: every query newest first.
func (d *Driver) discoverNewest(ctx context.Context, now time.Time, disc *poll.Discovery, seen map[string]*issueState) error {
	for qi, q := range d.o.Queries {
		where, order := jira.SplitOrderBy(q)
		if _, err := d.pass(ctx, passSpec{qi: qi, q: q, where: where, order: order}, now, disc, seen, nil); err != nil {
			return err
		}
	}
	return nil
}

// passFrom is the oldest-first pass from the cursor: its first page also
// reads the held issues. Jira rejects a query naming an issue that no
// longer exists: the pass then starts at the oldest held update instead.
// Where the site does not compare issue ids as numbers, the cursor's
// issue id is not searched by (keyset.go): the pass starts at its update
// time.
func (d *Driver) passFrom(ctx context.Context, ps passSpec, held map[string]time.Time, now time.Time, disc *poll.Discovery, seen map[string]*issueState, t *tally) (bool, error) {
	if len(held) > 0 {
		keys := slices.Sorted(maps.Keys(held))
		if in, err := jira.KeyIn(keys); err == nil && !ps.since.At.IsZero() {
			hps := ps
			hps.held = in
			full, err := d.pass(ctx, hps, now, disc, seen, t)
			if !jira.IsBadRequest(err) {
				return full, err
			}
			d.o.Log.Info("a held issue no longer exists; discovery starts at the oldest held change", "error", err.Error())
		}
		for _, at := range held {
			ps.since = earlier(ps.since, cursor.Pos{At: at})
		}
	}
	return d.pass(ctx, ps, now, disc, seen, t)
}

// passSpec is one paged pass of a query: newest first, or (asc) oldest
// first after since (zero: from the beginning). A query's own ORDER BY
// (order) is read as one page.
type passSpec struct {
	qi       int
	q, where string
	order    string
	asc      bool
	since    cursor.Pos
	held     string // a `key in (…)` clause the first page reads along
}

// pass pages one query by position (update time, then issue id): oldest
// first after since, or newest first, each page resuming after the last
// issue of the one before (walk, keyset.go), until N eligible issues
// were found, a page is not full, or MaxPages pages were read. It reports
// whether it stopped after a full page (more candidates may follow) and
// notes every candidate in t (when not nil), including the last position
// of a full last page.
func (d *Driver) pass(ctx context.Context, ps passSpec, now time.Time, disc *poll.Discovery, seen map[string]*issueState, t *tally) (bool, error) {
	keyset := ps.order == ""
	order := ps.order
	switch {
	case ps.asc:
		order = "ORDER BY updated ASC, id ASC"
	case keyset:
		order = "ORDER BY updated DESC, id DESC"
	}
	w := &walk{asc: ps.asc, pos: ps.since}
	for page := 0; page < d.o.MaxPages; page++ {
		held := ""
		if page == 0 {
			held = ps.held
		}
		issues, err := d.page(ctx, ps, w, held, order)
		if err != nil {
			return false, queryError(ps.qi, ps.q, err)
		}
		if now.IsZero() { // Jira's clock was not known when the pass began
			now = d.o.Now()
		}
		fresh := 0
		for _, is := range issues {
			if seen[is.Key] != nil {
				continue
			}
			fresh++
			disc.Candidates++
			st, handled := d.classify(is, now, disc)
			seen[is.Key] = st
			if t != nil {
				t.note(is.Key, d.tallied(is.Fields.Updated.Time, st.id), handled)
			}
		}
		full := len(issues) >= d.o.M
		if full {
			w.follow(issues)
		}
		if !keyset || !full || fresh == 0 || len(disc.Eligible) >= d.o.N || page == d.o.MaxPages-1 {
			if full && t != nil {
				t.bound = earlier(t.bound, d.tallied(w.pos.At, w.pos.ID))
				d.noteStuck(w)
			}
			return full && keyset, nil
		}
	}
	return false, nil
}

// queryError names the query and marks rejections and auth failures.
func queryError(i int, q string, err error) error {
	switch {
	case jira.IsBadRequest(err):
		return fmt.Errorf("query %d %q: %w: %w", i+1, q, poll.ErrQuery, err)
	case jira.IsAuth(err):
		return fmt.Errorf("query %d %q: %w: check the Jira credentials (connection.email_env/token_env) and their permissions: %w", i+1, q, poll.ErrAuth, err)
	}
	return fmt.Errorf("query %d %q: %w", i+1, q, err)
}

// view is what one read of an issue says about it (judge).
type view struct {
	locked, changed bool
	stale           bool // a lock to remove: stale or corrupt, no give-back owed
	expired         bool // a lock that no longer blocks the issue
	owed, takeover  bool // a lock owed a give-back; taking it over now gives it
	giveBack        *polllock.Position
	gone            []string // with takeover: the locks whose runs cannot start
	base            poll.Checkpoint
	corrupt         int
}

// look interprets an issue's inline properties and updated time.
func (d *Driver) look(is jira.Issue, now time.Time) view {
	lv := d.lockView(is.Key, is.Properties[d.lockKey], now)
	base, bad := d.checkpoint(is.Key, is.Properties[d.checkKey], now)
	v := judge(lv, base, is.Fields.Updated.Time)
	if lv.corrupt {
		v.corrupt++
	}
	if bad {
		v.corrupt++
	}
	return v
}

// classify adds is to the eligible or stale list of disc and returns the
// driver's state of it, and whether its changes are all handled (its
// checkpoint covers its last update; locked or not).
func (d *Driver) classify(is jira.Issue, now time.Time, disc *poll.Discovery) (*issueState, bool) {
	id, _ := strconv.ParseInt(is.ID, 10, 64)
	v := d.look(is, now)
	disc.Corrupt += v.corrupt
	it := &poll.Item{ID: is.Key, Cutoff: is.Fields.Updated.Time, Base: v.base, StaleLock: v.expired, TakenOver: v.takeover, GoneLocks: v.gone,
		Receipts: d.receiptsOf(is.Key, is.Properties[d.receiptsKey])}
	it.Waiting = v.base.Min()
	if it.Waiting.IsZero() {
		it.Waiting = is.Fields.Created.Time
	}
	switch {
	case v.locked:
	case v.changed:
		disc.Eligible = append(disc.Eligible, it)
	case v.stale:
		disc.Stale = append(disc.Stale, it)
	}
	return &issueState{issue: is, id: id}, !v.changed && !v.owed
}

// checkpoint decodes a lastCheck value. A corrupt value, or one further in
// the future than the stale threshold, falls back to the issue's creation
// (bad=true, logged): that may dispatch again, but never loses a change.
func (d *Driver) checkpoint(key string, raw json.RawMessage, now time.Time) (cp poll.Checkpoint, bad bool) {
	if len(raw) == 0 {
		return poll.Checkpoint{}, false
	}
	lc, err := lastcheck.Parse(raw)
	if err == nil && lc.TS.After(now.Add(d.o.StaleThreshold)) {
		err = fmt.Errorf("lastCheck: %s is in the future", lc.TS.UTC().Format(time.RFC3339))
	}
	if err != nil {
		d.o.Log.Warn("corrupt lastCheck value; using the issue's creation as baseline", "issue", key, "property", d.checkKey, "error", err.Error())
		return poll.Checkpoint{}, true
	}
	cp = poll.Checkpoint{At: lc.TS, Intents: lc.Intents}
	for h, t := range lc.Harness {
		if t.Before(lc.TS) {
			if cp.Retry == nil {
				cp.Retry = map[string]time.Time{}
			}
			cp.Retry[h] = t
		}
	}
	return cp, false
}

// lastCheckValue encodes a checkpoint as a lastCheck value; its runs are
// recorded as dispatched under the lock id lockID.
func lastCheckValue(cp poll.Checkpoint, lockID string) json.RawMessage {
	lc := lastcheck.LastCheck{TS: cp.At.UTC(), Intents: lastcheck.UTCIntents(cp.Intents), Runs: cp.Runs}
	if len(cp.Runs) > 0 {
		lc.Lock = lockID
	}
	for h, t := range cp.Retry {
		if lc.Harness == nil {
			lc.Harness = map[string]time.Time{}
		}
		lc.Harness[h] = t.UTC()
	}
	b, _ := json.Marshal(lc)
	return b
}
