package jirapoll_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// me is the emulator's own account: the user cursor lives on it.
const me = "557058:fullsend-bot"

const (
	userPropGet = "GET /rest/api/3/user/properties/{propertyKey}"
	userPropPut = "PUT /rest/api/3/user/properties/{propertyKey}"
	searchCall  = "POST /rest/api/3/search/jql"
)

func (e *env) cursor() (cursor.Cursor, bool) {
	e.t.Helper()
	raw, ok := e.sim.OwnerProperty(jirasim.OwnerUser, me, cursor.Key(repo))
	if !ok {
		return cursor.Cursor{}, false
	}
	c, err := cursor.Parse(raw)
	if err != nil {
		e.t.Fatalf("cursor: %v", err)
	}
	return c, true
}

func (e *env) putCursor(c cursor.Cursor) {
	e.sim.SetOwnerPropertyDirect(jirasim.OwnerUser, me, cursor.Key(repo), c.Marshal())
}

// idleCalls runs one cycle of p and returns the Jira calls it made.
func (e *env) cycleCalls(p *poller) int {
	e.t.Helper()
	e.sim.ResetCalls()
	p.mustCycle()
	return sumCalls(e.sim.Calls())
}

// TestCursorIdleCycle: whatever the backlog, an idle cycle reads the
// cursor and runs one search; after a burst of work the cost comes back
// to that within a few cycles.
func TestCursorIdleCycle(t *testing.T) {
	for _, n := range []int{2000, 20000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			keys := e.issues(n, seeded, "")
			e.clock.Advance(10 * time.Minute)
			// The fleet has been polling: the cursor is a minute behind.
			e.putCursor(cursor.Cursor{At: e.clock.Now().Add(-time.Minute), By: "other", TS: e.clock.Now()})
			out := &recorder{}
			out.after = e.release
			p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, stale: 10 * time.Minute, out: out})
			p.mustCycle() // the first cycle also reads /myself, once per process
			for i := range 3 {
				got := e.cycleCalls(p)
				t.Logf("idle cycle at %d issues: %d calls", n, got)
				if got > 2 {
					t.Fatalf("idle cycle %d at %d issues: %d calls, want at most 2: %v", i, n, got, e.sim.Calls())
				}
				e.clock.Advance(time.Minute)
			}
			e.sim.AddComment(keys[n/2], alice, "/fs-triage")
			e.sim.AddComment(keys[7], alice, "/fs-triage")
			p.mustCycle()
			if got := len(out.all()); got != 4 {
				t.Fatalf("dispatched %d runs, want 4 (triage and audit on 2 issues)", got)
			}
			idle := 0
			for range 6 {
				e.clock.Advance(time.Minute)
				calls := e.cycleCalls(p)
				t.Logf("cycle after the burst: %d calls", calls)
				if calls <= 2 {
					idle++
				} else if idle > 0 {
					t.Fatalf("an idle cycle after the burst cost more than 2 calls again: %v", e.sim.Calls())
				}
			}
			if idle < 3 {
				t.Fatalf("only %d of the 6 cycles after the burst cost at most 2 calls", idle)
			}
		})
	}
}

// TestCursorStuckChange: an old change that stays unhandled (its issue
// locked by a live poller that never finishes) is held by the cursor (or
// holds it back), and more than 10 full pages of handled issues follow it:
// a newer change is still found and dispatched in the same cycle, and the
// held issue is dispatched once its lock is gone.
func TestCursorStuckChange(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	keys := e.issues(700, seeded, "")
	e.clock.Advance(10 * time.Minute)
	e.putCursor(cursor.Cursor{At: e.clock.Now(), By: "other", TS: e.clock.Now()})
	stuck, fresh := keys[0], keys[699]
	e.sim.AddComment(stuck, alice, "/fs-triage")
	held := polllock.Lock{ID: "other", TS: e.clock.Now(), Phase: polllock.PhaseRunning}.Marshal()
	e.sim.SetPropertyDirect(stuck, lockKey(), held)
	stuckAt := e.clock.Now()
	for _, k := range keys[1:650] {
		e.sim.AddLabel(k, "touched", alice)
		e.seed(k)
	}
	e.clock.Advance(time.Second)
	e.sim.AddComment(fresh, alice, "/fs-triage")
	e.clock.Advance(3 * time.Minute) // past the margin: the cursor may move
	out := &recorder{}
	var stats []poll.CycleStats
	p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, stale: 10 * time.Minute, out: out,
		observer: func(s poll.CycleStats) { stats = append(stats, s) }})
	p.mustCycle()
	if got := out.count(); got[fresh+"/triage"] != 1 || got[stuck+"/triage"] != 0 {
		t.Fatalf("dispatched %v, want the fresh change only", got)
	}
	c, _ := e.cursor()
	if _, held := c.Held[stuck]; c.At.After(stuckAt) && !held {
		t.Fatalf("cursor %s passed the stuck change (%s) without holding it: %v", c.At, stuckAt, c.Held)
	}
	if s := stats[0].Cursor; s.State != "used" || !s.Moved || s.At.IsZero() {
		t.Fatalf("cycle reported cursor %+v, want used and moved", s)
	}
	for i := 0; i < 5; i++ { // the cursor walks past the handled issues, holding the stuck one
		e.clock.Advance(time.Minute)
		p.mustCycle()
	}
	c, _ = e.cursor()
	if _, held := c.Held[stuck]; !held || !c.At.After(stuckAt) {
		t.Fatalf("cursor %s, held %v: want it past the stuck change, holding it", c.At, c.Held)
	}
	e.sim.SetPropertyDirect(stuck, lockKey(), nil) // the long run ends
	e.clock.Advance(time.Minute)
	e.sim.ResetCalls()
	p.mustCycle()
	if got := out.count(); got[stuck+"/triage"] != 1 {
		t.Fatalf("the held change was not dispatched: %v", got)
	}
	// One search discovers it; the lock protocol re-reads it three times
	// (before locking, before dispatch, when recording the runs).
	if n := e.sim.Calls()[searchCall]; n > 4 {
		t.Errorf("%d searches in the cycle that found the held change, want 4", n)
	}
}

// TestCursorBootstrap: without a cursor, discovery reads from the oldest
// candidate (handled ones included) and the cursor walks forward page by
// page until idle cycles cost 2 calls.
func TestCursorBootstrap(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.issues(1200, seeded, "")
	e.clock.Advance(10 * time.Minute)
	p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, stale: 10 * time.Minute})
	var last time.Time
	cycles := 0
	for ; cycles < 10; cycles++ {
		calls := e.cycleCalls(p)
		c, ok := e.cursor()
		if !ok || !c.At.After(last) && calls > 2 {
			t.Fatalf("cycle %d: cursor %v (present %v) did not move, %d calls", cycles, c.At, ok, calls)
		}
		t.Logf("cycle %d: %d calls, cursor %s", cycles, calls, c.At.Format(time.RFC3339Nano))
		last = c.At
		e.clock.Advance(time.Minute)
		if calls <= 2 {
			break
		}
	}
	if cycles > 5 {
		t.Fatalf("idle after %d cycles, want at most 5 (1 200 issues, 500 a cycle)", cycles)
	}
}

func TestReadCursor(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	p := e.poller(pollerOpts{cursor: jirapoll.CursorUser})
	ctx := context.Background()
	if _, found, err := p.drv.ReadCursor(ctx); found || err != nil {
		t.Fatalf("no cursor yet: found %v, %v", found, err)
	}
	at := e.clock.Now().Add(-time.Hour)
	e.putCursor(cursor.Cursor{At: at, By: "p1", TS: e.clock.Now()})
	c, found, err := p.drv.ReadCursor(ctx)
	if !found || err != nil || !c.At.Equal(at) || c.Lag(e.clock.Now()) < time.Hour {
		t.Fatalf("ReadCursor = %+v, %v, %v", c, found, err)
	}
	e.sim.SetOwnerPropertyDirect(jirasim.OwnerUser, me, cursor.Key(repo), json.RawMessage(`{"at":1}`))
	if _, _, err := p.drv.ReadCursor(ctx); err == nil || !strings.Contains(err.Error(), "poll cursor") {
		t.Fatalf("corrupt cursor: %v", err)
	}
	off := e.poller(pollerOpts{})
	if _, found, err := off.drv.ReadCursor(ctx); found || err != nil {
		t.Fatalf("no cursor API: found %v, %v", found, err)
	}
}

// TestCursorHeldIssueDeleted: Jira refuses a key list naming a deleted
// issue; the cycle searches from the oldest held change instead, still
// finds the other held change, and the next write drops the deleted one.
func TestCursorHeldIssueDeleted(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	keys := e.issues(3, seeded, "")
	e.clock.Advance(10 * time.Minute)
	e.sim.AddComment(keys[0], alice, "/fs-triage")
	first := e.clock.Now().Truncate(time.Millisecond)
	e.sim.AddComment(keys[1], alice, "/fs-triage")
	second := e.clock.Now().Truncate(time.Millisecond)
	e.clock.Advance(10 * time.Minute)
	e.putCursor(cursor.Cursor{At: e.clock.Now().Add(-5 * time.Minute), By: "other", TS: e.clock.Now(),
		Held: map[string]time.Time{keys[0]: first, keys[1]: second}})
	e.sim.DeleteIssue(keys[0])
	out := &recorder{after: e.release} // each run claims its lock and ends
	var logs syncio.Buffer
	p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, out: out, m: 2, log: slog.New(slog.NewTextHandler(&logs, nil))})
	p.mustCycle()
	if got := out.count(); got[keys[1]+"/triage"] != 1 {
		t.Fatalf("dispatched %v, want the surviving held change", got)
	}
	if !strings.Contains(logs.String(), "held issue no longer exists") {
		t.Fatalf("the refused key list was not reported:\n%s", logs.String())
	}
	e.clock.Advance(10 * time.Minute)
	e.sim.AddComment(keys[2], alice, "/fs-triage")
	e.clock.Advance(5 * time.Minute)
	p.mustCycle()
	p.mustCycle()
	if c, _ := e.cursor(); len(c.Held) != 0 || c.By == "other" {
		t.Fatalf("cursor %+v: want a new write without the deleted issue", c)
	}
}

// TestCursorFromTheFuture: a cursor whose position lies in the future
// (anyone who can edit the property can write one) is not believed:
// discovery from it would pass every change until that time. It is
// treated as corrupt: the change is found and dispatched, and the cursor
// rewritten from what the poller saw.
func TestCursorFromTheFuture(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	keys := e.issues(3, seeded, "")
	e.clock.Advance(time.Minute)
	future := e.clock.Now().Add(365 * 24 * time.Hour)
	e.putCursor(cursor.Cursor{At: future, By: "other", TS: e.clock.Now()})
	e.sim.AddComment(keys[1], alice, "/fs-triage")
	out := &recorder{}
	out.after = e.release
	p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, out: out})
	st := p.mustCycle()
	if got := out.count(); got[keys[1]+"/triage"] != 1 || got[keys[1]+"/audit"] != 1 {
		t.Fatalf("dispatched %v (stats %+v), want the change's triage and audit", got, st.Cursor)
	}
	if c, ok := e.cursor(); !ok || !c.At.Before(future) {
		t.Errorf("cursor %+v (present %v), want it rewritten before the future position", c, ok)
	}
}
