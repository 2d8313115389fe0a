package jirapoll_test

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// TestCursorPlateau: where Jira compares issue ids as numbers (the
// numeric reading: a position may be inside an instant), more issues
// updated in one millisecond than a cycle reads (a bulk edit, an import:
// 250 issues, 10 pages of 10 a cycle) are walked through once, in at most
// ⌈250 ÷ 100⌉ + 2 cycles, from no cursor or from a cursor written before
// positions had an id part; then an idle cycle costs at most 2 calls, and
// a change on an issue at the start or in the middle of the plateau is
// still found and dispatched.
func TestCursorPlateau(t *testing.T) {
	const n, m = 250, 10
	cases := []struct {
		name  string
		setup func(e *env, at time.Time)
	}{
		{"no cursor", func(*env, time.Time) {}},
		{"old-format cursor at the plateau", func(e *env, at time.Time) {
			old := `{"at":"` + at.UTC().Format(time.RFC3339Nano) + `","by":"old","ts":"` + e.clock.Now().UTC().Format(time.RFC3339Nano) + `"}`
			e.sim.SetOwnerPropertyDirect(jirasim.OwnerUser, me, cursor.Key(repo), json.RawMessage(old))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{KeyComparison: jirasim.KeysNumeric})
			at := e.siteNow().Truncate(time.Millisecond)
			keys := e.plateau(n)
			e.clock.Advance(10 * time.Minute)
			tc.setup(e, at)
			out := &recorder{after: e.release}
			p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, stale: 10 * time.Minute, out: out, m: m})
			warm := (n+m*jirapoll.DefaultMaxPages-1)/(m*jirapoll.DefaultMaxPages) + 2
			cycles := 0
			for calls := 3; calls > 2; cycles++ {
				if cycles == warm {
					c, _ := e.cursor()
					t.Fatalf("still walking after %d cycles (%d calls in the last), cursor at (%s, %d)", cycles, calls, c.At, c.AtID)
				}
				calls = e.cycleCalls(p)
				c, _ := e.cursor()
				t.Logf("cycle %d: %d calls, cursor at (%s, %d)", cycles, calls, c.At.Format(time.RFC3339Nano), c.AtID)
				e.clock.Advance(time.Minute)
			}
			c, _ := e.cursor()
			if !c.At.Equal(at) || c.AtID == 0 {
				t.Fatalf("cursor at (%s, %d): want a position inside the plateau at %s", c.At, c.AtID, at)
			}
			for i := range 3 {
				if got := e.cycleCalls(p); got > 2 {
					t.Fatalf("idle cycle %d after the walk: %d calls, want at most 2: %v", i, got, e.sim.Calls())
				}
				e.clock.Advance(time.Minute)
			}
			for _, k := range []string{keys[0], keys[n/2]} {
				e.sim.AddComment(k, alice, "/fs-triage")
			}
			p.mustCycle()
			if got := out.count(); got[keys[0]+"/triage"] != 1 || got[keys[n/2]+"/triage"] != 1 {
				t.Fatalf("dispatched %v, want triage on %s and %s", got, keys[0], keys[n/2])
			}
		})
	}
}

// TestCursorIDRefused: a search from the cursor's issue id that Jira
// refuses (a 400, here once on a site that compares ids as numbers) is
// asked again without the id in the same cycle, and the change after it
// is still dispatched; the refusal is reported.
func TestCursorIDRefused(t *testing.T) {
	e := newEnv(t, jirasim.Options{KeyComparison: jirasim.KeysNumeric})
	at := e.siteNow().Truncate(time.Millisecond)
	keys := e.plateau(20)
	e.clock.Advance(10 * time.Minute)
	id, _ := strconv.ParseInt(e.sim.IssueID(keys[9]), 10, 64)
	e.putCursor(cursor.Cursor{At: at, AtID: id, By: "other", TS: e.clock.Now()})
	e.sim.AddComment(keys[15], alice, "/fs-triage")
	e.clock.Advance(time.Second)
	e.sim.InjectFault(jirasim.Fault{Endpoint: searchCall, Status: 400, Times: 1})
	out := &recorder{after: e.release}
	var logs syncio.Buffer
	p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, out: out, log: slog.New(slog.NewTextHandler(&logs, nil))})
	p.mustCycle()
	if got := out.count(); got[keys[15]+"/triage"] != 1 {
		t.Fatalf("dispatched %v, want triage on %s", got, keys[15])
	}
	if !strings.Contains(logs.String(), "Jira does not compare issue ids as numbers") {
		t.Fatalf("the refused search was not reported:\n%s", logs.String())
	}
}

// TestCursorPlateauHeld: where Jira compares issue ids as numbers, on a
// plateau of issues whose changes cannot be handled yet (each locked by a
// live run), the cursor holds as many as it may list (m ÷ 2) and stays
// just before the next one, inside the plateau; once the runs end, the
// changes are handled 5 a cycle, the cursor moves on through the plateau
// and idle cycles cost at most 2 calls.
func TestCursorPlateauHeld(t *testing.T) {
	const n, m = 30, 10
	e := newEnv(t, jirasim.Options{KeyComparison: jirasim.KeysNumeric})
	at := e.siteNow().Truncate(time.Millisecond)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = e.sim.AddIssue(jirasim.IssueSpec{Project: project, Summary: "work", Reporter: alice, Created: at})
	}
	e.clock.Advance(10 * time.Minute)
	running := polllock.Lock{ID: "other", TS: e.clock.Now(), Phase: polllock.PhaseRunning}.Marshal()
	for _, k := range keys {
		e.sim.SetPropertyDirect(k, lockKey(), running)
	}
	p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, stale: 10 * time.Minute, m: m, out: &recorder{after: e.release}})
	p.mustCycle()
	c, _ := e.cursor()
	sixth, _ := strconv.ParseInt(e.sim.IssueID(keys[m/2]), 10, 64)
	if len(c.Held) != m/2 || c.Pos() != (cursor.Pos{At: at, ID: sixth - 1}) {
		t.Fatalf("cursor at (%s, %d) holding %v: want %d held and the position just before %s (%d)", c.At, c.AtID, c.Held, m/2, keys[m/2], sixth)
	}
	for _, k := range keys {
		id, _ := strconv.ParseInt(e.sim.IssueID(k), 10, 64)
		if _, held := c.Held[k]; c.Passed(at, id) && !held {
			t.Fatalf("the cursor passed %s, unhandled, without holding it", k)
		}
	}
	for _, k := range keys {
		e.sim.SetPropertyDirect(k, lockKey(), nil) // the runs end
	}
	idle := 0
	for i := 0; i < n/5+4 && idle < 3; i++ {
		e.clock.Advance(time.Minute)
		if e.cycleCalls(p) <= 2 {
			idle++
		} else if idle > 0 {
			t.Fatalf("an idle cycle cost more than 2 calls again: %v", e.sim.Calls())
		}
	}
	if c, _ := e.cursor(); idle < 3 || c.Pos().Compare(cursor.Pos{At: at, ID: sixth}) <= 0 {
		t.Fatalf("%d idle cycles, cursor at (%s, %d): want 3 and the cursor further into the plateau", idle, c.At, c.AtID)
	}
}
