package jirapoll

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// The shared discovery cursor (docs/polling.md, "Discovery cursor").
//
// A position is an update time, then an issue id (cursor.Pos):
// discovery reads in that order, so a plateau (more issues updated in one
// instant than a search reads) is walked through, never stuck at. Where
// Jira does not compare issue ids as numbers, a position has no id
// (keyset.go): a plateau is then walked within one discovery, and the
// cursor stays before one that discovery could not walk to its end.
//
// A poller proposes a new position from what its own discovery saw: its
// search's start minus the margin, capped just before the newest position
// seen (without ids: just after its instant when every issue of it is
// handled) and at the last position of a page that was full (what lies
// beyond was not seen). Every candidate at or before it that is not
// handled yet (its checkpoint does not cover its last update: not
// dispatched, failed, deferred, locked mid-dispatch by another poller, or
// simply not selected) is listed in Held, which discovery reads along (at
// most maxHeld: the position then stays just before the first one that
// does not fit). A change that can never be dispatched (denied, no trigger,
// quarantined) is passed by its item's checkpoint, so it holds nothing
// back.
//
// Discovery starts right after the cursor (`updated >= at`, in epoch
// milliseconds like the keyset paging of discoverNewest, and `id > at_id`
// at at itself where ids compare as numbers): the margin is taken when
// proposing instead, so a dense run of updates (more than the pages of
// one cycle within a margin) is walked through page by page rather than
// read again every cycle. It is enough there: a change the proposer's
// search could not see yet (Jira's search lag, clock skew) was made less
// than the margin before that search, so after the proposal. A position with an id is proposed only
// when its instant is more than the margin before the search start, so
// every issue updated at that instant was visible to the search.
//
// Last writer wins, and that is safe: a proposal (P, Held) claims only
// that every candidate at or before P was handled, or is in Held, when
// its discovery read Jira. Handled stays handled (a checkpoint only moves
// forward, and a later change moves the updated time past P, the
// margin absorbing Jira's search lag), so every proposal remains true after
// it was made, whoever wrote later. A write that replaces a further
// position by an older one only costs a few candidates read again; a lost
// or failed write only leaves the cursor behind. The cursor is derived
// from what Jira says, never from what a poller meant to do: a poller that
// crashes between a dispatch and its checkpoint leaves the change
// unhandled, and every later proposal holds it.

// CursorAPI reads and writes the entity property that stores the cursor;
// *jira.Client implements it.
type CursorAPI interface {
	GetOwnerProperty(ctx context.Context, o jira.Owner, property string) (json.RawMessage, bool, error)
	SetOwnerProperty(ctx context.Context, o jira.Owner, property string, value any) error
}

// Cursor modes (Options.CursorMode, config poll.cursor).
const (
	CursorUser    = "user"    // a property of the poller's own account
	CursorProject = "project" // a property of Options.Project
	CursorOff     = "off"
)

// DefaultCursorMargin is how far behind its own search start a poller
// keeps the cursor: it covers Jira's search lag and the clock skew between
// the poller and Jira.
const DefaultCursorMargin = 2 * time.Minute

// Cursor report states (poll.CursorReport.State).
const (
	cursorUsed     = "used"
	cursorAbsent   = "absent"
	cursorCorrupt  = "corrupt"
	cursorFallback = "fallback"
)

// cursorState is the driver's memory of the cursor; only Discover uses it.
type cursorState struct {
	key    string
	owner  jira.Owner // Kind "" until resolved
	off    bool       // unusable for the life of the process
	warned map[string]bool
	streak map[string]streak // item → consecutive discoveries it was eligible in, unserved
	rounds int               // discoveries with the cursor in this process
	// known is every poller entry this process read (the newest time of
	// each): concurrent writes may drop an entry from the document, and
	// whoever remembers it writes it back with its next write.
	known map[string]time.Time
}

// rememberPollers merges the poller entries of c into known and returns
// the merged list.
func (d *Driver) rememberPollers(c cursor.Cursor) map[string]time.Time {
	if d.cur.known == nil {
		d.cur.known = map[string]time.Time{}
	}
	for id, t := range c.Pollers {
		if t.After(d.cur.known[id]) {
			d.cur.known[id] = t
		}
	}
	return maps.Clone(d.cur.known)
}

// member reports whether this poller shares work and is listed in the
// cursor: from its second discovery on. A one-shot process (cron, CI
// schedule) without a state directory gets a new id every run and would
// never come back: listed, it would be handed a share nobody serves until
// its entry expired. With one it comes back under its saved id, its
// discoveries counted (State.Attach).
func (d *Driver) member() bool { return d.cur.rounds > 1 }

// warnOnce logs a cursor problem once per process and kind.
func (d *Driver) warnOnce(kind, msg string, args ...any) {
	if d.cur.warned[kind] {
		return
	}
	if d.cur.warned == nil {
		d.cur.warned = map[string]bool{}
	}
	d.cur.warned[kind] = true
	d.o.Log.Warn(msg, append([]any{"property", d.cur.key, "mode", d.o.CursorMode}, args...)...)
}

// cursorOn reports whether discovery should use the cursor at all.
func (d *Driver) cursorOn() bool {
	return d.o.CursorAPI != nil && d.o.CursorMode != CursorOff && !d.cur.off
}

// disable stops using the cursor for the process, with one warning.
func (d *Driver) disable(why string, err error) {
	d.cur.off = true
	d.warnOnce("off", "discovery cursor unusable; discovering without it from now on: "+why, "error", err.Error())
}

// resolveOwner finds where the cursor lives (once per process).
func (d *Driver) resolveOwner(ctx context.Context) error {
	if d.cur.owner.Kind != "" {
		return nil
	}
	if d.o.CursorMode == CursorProject {
		d.cur.owner = jira.Owner{Kind: jira.OwnerProject, ID: d.o.Project}
		return nil
	}
	id := d.o.CursorAccount
	if id == "" {
		me, err := d.o.API.Myself(ctx)
		if err != nil {
			return err
		}
		id = me.AccountID
	}
	d.cur.owner = jira.Owner{Kind: jira.OwnerUser, ID: id}
	return nil
}

// readCursor reads the cursor. It returns the document (nil when absent,
// corrupt or unusable) and the report state; "fallback" means discovery
// runs as without a cursor this cycle.
func (d *Driver) readCursor(ctx context.Context) (*cursor.Cursor, string) {
	if err := d.resolveOwner(ctx); err != nil {
		d.warnOnce("owner", "discovery cursor: could not read the poller's own account; discovering without the cursor", "error", err.Error())
		return nil, cursorFallback
	}
	raw, found, err := d.o.CursorAPI.GetOwnerProperty(ctx, d.cur.owner, d.cur.key)
	switch {
	case jira.IsForbidden(err):
		d.disable("reading it was refused (see docs/jira.md for the permission it needs)", err)
		return nil, cursorFallback
	case err != nil:
		d.warnOnce("read", "discovery cursor could not be read; discovering without it until it can", "error", err.Error())
		return nil, cursorFallback
	case !found:
		return nil, cursorAbsent
	}
	c, err := cursor.Parse(raw)
	if err == nil && c.Future(d.o.Now()) {
		err = fmt.Errorf("discovery cursor: its position %s is in the future", c.At.UTC().Format(time.RFC3339))
	}
	if err != nil {
		d.warnOnce("corrupt", "corrupt discovery cursor; treated as absent (full discovery) and rewritten", "error", err.Error())
		return nil, cursorCorrupt
	}
	d.rememberPollers(c)
	d.adoptPace(c)
	return &c, cursorUsed
}

// tally is what a discovery saw that bounds the cursor's next position.
type tally struct {
	unhandled []heldItem // candidates not handled yet
	bound     cursor.Pos // earliest last position of a full page where a pass stopped
	maxSeen   cursor.Pos // newest position seen
	seen      bool
	count     int // candidates seen
}

type heldItem struct {
	key string
	pos cursor.Pos
}

// earlier is the earlier of two positions, a zero one standing for none.
func earlier(a, b cursor.Pos) cursor.Pos {
	if a.At.IsZero() || (!b.At.IsZero() && b.Compare(a) < 0) {
		return b
	}
	return a
}

// note records one candidate at position p (its id 0 when Jira gave
// none, or where ids do not compare as numbers).
func (t *tally) note(key string, p cursor.Pos, handled bool) {
	t.seen = true
	t.count++
	if p.Compare(t.maxSeen) > 0 {
		t.maxSeen = p
	}
	if !handled {
		t.unhandled = append(t.unhandled, heldItem{key, p})
	}
}

// justBefore is the last position before p: (p.At, p.ID-1), or a
// nanosecond before p.At when p has no id (then every issue at p.At is
// after it).
func justBefore(p cursor.Pos) cursor.Pos {
	if p.ID > 0 {
		return cursor.Pos{At: p.At, ID: p.ID - 1}
	}
	return cursor.Pos{At: p.At.Add(-time.Nanosecond)}
}

// proposal is the cursor position the discovery that started at start
// supports, with the unhandled candidates at or before it (at most
// maxHeld: the cursor stays just before the oldest one beyond); ok is
// false when nothing was seen. idless says positions carry no issue id
// (the site does not compare ids as numbers, keyset.go).
func (t *tally) proposal(start time.Time, margin time.Duration, maxHeld int, idless bool) (at cursor.Pos, held map[string]time.Time, ok bool) {
	if !t.seen {
		return cursor.Pos{}, nil, false
	}
	// The newest issue seen stays after the cursor (unhandled, it is not
	// held: the search reads it anyway). Without ids that would keep its
	// whole instant after the cursor, read again every cycle: the cursor
	// then passes the instant when every issue of it is handled (all of
	// them were seen, or a full page's bound is before it).
	newest := justBefore(t.maxSeen)
	if idless && !slices.ContainsFunc(t.unhandled, func(u heldItem) bool { return u.pos.At.Equal(t.maxSeen.At) }) {
		newest = cursor.Pos{At: t.maxSeen.At.Add(time.Millisecond)}
	}
	at = cursor.Pos{At: start.Add(-margin)}
	for _, b := range []cursor.Pos{t.bound, newest} {
		if !b.At.IsZero() && b.Compare(at) < 0 {
			at = b
		}
	}
	slices.SortFunc(t.unhandled, func(a, b heldItem) int {
		if c := a.pos.Compare(b.pos); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	for i, u := range t.unhandled {
		if u.pos.Compare(at) > 0 {
			break
		}
		if i == maxHeld {
			at = justBefore(u.pos)
			break
		}
		if held == nil {
			held = map[string]time.Time{}
		}
		held[u.key] = u.pos.At
	}
	return at, held, true
}

// maxHeld is how many held issues the cursor may list: few enough that
// they take at most half of the first page.
func (d *Driver) maxHeld() int { return min(cursor.MaxHeld, d.o.M/2) }

// advance writes the cursor when the proposal moves it forward and the
// search read at least half a page (a cursor whose search fits in one page
// costs nothing to leave behind), or when
// this poller's entry in the pollers list needs refreshing while there is
// work to share (an idle cycle writes nothing). A write is verified by a
// re-read; a concurrent writer may win (see the package comment above).
func (d *Driver) advance(ctx context.Context, cur *cursor.Cursor, t *tally, start time.Time, disc *poll.Discovery) {
	if poll.IsDryRun(ctx) {
		return // a dry run writes nothing, and the cursor is shared
	}
	now := d.o.Now()
	next := cursor.Cursor{}
	if cur != nil {
		next = *cur
	}
	p, held, ok := t.proposal(start, d.o.CursorMargin, d.maxHeld(), !d.numericIDs())
	// Moving a cursor whose search still fits in half a page saves
	// nothing: it is left, and busy cycles do not pay a write each. Among
	// pollers that share, one moves it (see mover), so that they do not
	// all pay a write for the same move.
	moved := ok && (cur == nil || p.Compare(cur.Pos()) > 0 && t.count >= d.o.M/2 && d.mover(cur, t, now))
	if moved {
		next.At, next.AtID, next.Held = p.At, p.ID, held
	}
	work := len(disc.Eligible)+disc.Cursor.Shared > 0
	heartbeat := cur != nil && d.member() && d.heartbeatDue(cur, now, work)
	if !moved && !heartbeat && !d.paceDue(cur, now) {
		return
	}
	next.By, next.TS = d.o.PollerID, now
	next.Pace = d.pace(next.Pace, now)
	if d.member() {
		// Entries a concurrent write dropped come back from memory.
		next.Pollers = d.rememberPollers(next)
		next = next.WithPoller(d.o.PollerID, now, d.pollerTTL())
		d.rememberPollers(next)
	}
	if err := d.o.CursorAPI.SetOwnerProperty(ctx, d.cur.owner, d.cur.key, json.RawMessage(next.Marshal())); err != nil {
		if jira.IsForbidden(err) {
			d.disable("writing it was refused (see docs/jira.md for the permission it needs)", err)
		} else {
			d.warnOnce("write", "discovery cursor could not be written; it stays behind (no change is lost)", "error", err.Error())
		}
		return
	}
	disc.Cursor.Moved, disc.Cursor.At = moved, next.At
	d.verifyCursor(ctx, next)
}

// mover reports whether this poller moves cursor cur: always when it does
// not share, or when its search filled a page (the next one would need
// two), or when nobody moved it for twice the margin (the chosen poller is
// gone); else only the poller that rendezvous hashing of the cursor's key
// prefers among the pollers cur lists.
func (d *Driver) mover(cur *cursor.Cursor, t *tally, now time.Time) bool {
	pollers := cur.Listed(now, d.pollerTTL())
	if !d.member() || !slices.Contains(pollers, d.o.PollerID) || len(pollers) < 2 {
		return true
	}
	return t.count >= d.o.M || now.Sub(cur.TS) >= 2*d.o.CursorMargin || Preferred(d.cur.key, pollers) == d.o.PollerID
}

// verifyCursor re-reads the cursor after a write: another poller's write
// may have replaced it (last writer wins), which is logged, not retried.
func (d *Driver) verifyCursor(ctx context.Context, wrote cursor.Cursor) {
	raw, found, err := d.o.CursorAPI.GetOwnerProperty(ctx, d.cur.owner, d.cur.key)
	if err != nil || !found {
		if err == nil {
			err = errors.New("the property is missing after the write")
		}
		d.warnOnce("verify", "discovery cursor could not be re-read after a write", "error", err.Error())
		return
	}
	got, err := cursor.Parse(raw)
	if err == nil && (got.By != wrote.By || !got.TS.Equal(wrote.TS)) {
		d.o.Log.Debug("discovery cursor replaced by another poller's write", "by", got.By, "at", got.At)
	}
}

// heartbeatDue reports whether this poller writes the pollers list: in
// any cycle when the document read lacks a fresh poller this one remembers
// (itself included: a concurrent write dropped it, and pollers must agree
// on the list to pick disjoint issues; an idle cycle's document would
// stay wrong), and in a cycle with work (work) when the document lacks
// this poller's entry or it is older than half the TTL, so that idle
// cycles of a settled fleet stay at their two calls.
func (d *Driver) heartbeatDue(cur *cursor.Cursor, now time.Time, work bool) bool {
	if cur == nil {
		return true
	}
	for _, id := range (cursor.Cursor{Pollers: d.cur.known}).Listed(now, d.pollerTTL()) {
		if _, listed := cur.Pollers[id]; !listed {
			return true
		}
	}
	t, ok := cur.Pollers[d.o.PollerID]
	return work && (!ok || now.Sub(t) >= d.pollerTTL()/2)
}

// pollerTTL is how long a poller counts as alive after its last cursor
// write: the lock stale threshold.
func (d *Driver) pollerTTL() time.Duration { return d.o.StaleThreshold }

// ReadCursor reads the discovery cursor without using it (for `fullsend
// status`: its position and Lag). found is false when there is none or the
// cursor is off; a corrupt value is an error naming the problem.
func (d *Driver) ReadCursor(ctx context.Context) (c cursor.Cursor, found bool, err error) {
	if d.o.CursorAPI == nil || d.o.CursorMode == CursorOff {
		return cursor.Cursor{}, false, nil
	}
	if err := d.resolveOwner(ctx); err != nil {
		return cursor.Cursor{}, false, err
	}
	raw, found, err := d.o.CursorAPI.GetOwnerProperty(ctx, d.cur.owner, d.cur.key)
	if err != nil || !found {
		return cursor.Cursor{}, false, err
	}
	c, err = cursor.Parse(raw)
	return c, err == nil, err
}
