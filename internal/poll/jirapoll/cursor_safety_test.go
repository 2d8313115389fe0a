package jirapoll_test

import (
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// world tracks the changes a test made, to check the cursor's safety
// invariant: the cursor never passes a change its issue's checkpoint does
// not cover unless it holds the issue, and every change is dispatched
// exactly once.
type world struct {
	*env
	out      *recorder
	changed  map[string]time.Time // issue → its latest comment
	arrival  map[string]int       // issue → round its comment arrived
	done     map[string]int       // issue → round it was dispatched
	pollers  []*poller
	logs     *syncio.Buffer
	maxRound int
}

func newWorld(t *testing.T, issues int) (*world, []string) { return newLaggingWorld(t, issues, 0) }

// newLaggingWorld is a world whose search sees writes lag late.
func newLaggingWorld(t *testing.T, issues int, lag time.Duration) (*world, []string) {
	return newWorldOf(t, lag, func(e *env) []string { return e.issues(issues, seeded, "") })
}

// newPlateauWorld is a world whose issues were all updated in one
// millisecond (env.plateau).
func newPlateauWorld(t *testing.T, issues int) (*world, []string) {
	return newWorldOf(t, 0, func(e *env) []string { return e.plateau(issues) })
}

// newWorldOf is a world of the issues create makes, with search lag lag.
func newWorldOf(t *testing.T, lag time.Duration, create func(e *env) []string) (*world, []string) {
	e := newEnv(t, jirasim.Options{SearchLag: lag})
	keys := create(e)
	e.clock.Advance(10 * time.Minute)
	w := &world{env: e, out: &recorder{}, changed: map[string]time.Time{}, arrival: map[string]int{},
		done: map[string]int{}, logs: &syncio.Buffer{}}
	w.out.after = e.release
	return w, keys
}

// add starts a poller sharing the world's output and log.
func (w *world) add(po pollerOpts) *poller {
	po.out = w.out
	po.log = slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if po.stale == 0 {
		po.stale = 10 * time.Minute
	}
	p := w.poller(po)
	w.pollers = append(w.pollers, p)
	return p
}

// comment adds a /fs-triage comment on key in round r.
func (w *world) comment(key string, r int) {
	w.sim.AddComment(key, alice, "/fs-triage")
	w.changed[key] = w.clock.Now().Truncate(time.Millisecond) // Jira's resolution
	w.arrival[key] = r
}

// check asserts the cursor invariant and records dispatches in round r.
func (w *world) check(r int) {
	w.t.Helper()
	for _, run := range w.out.all() {
		if _, ok := w.done[run.Event.Entity.Key]; !ok && run.Harness == "triage" {
			w.done[run.Event.Entity.Key] = r
		}
	}
	c, ok := w.cursor()
	if !ok {
		return
	}
	for key, at := range w.changed {
		lc, _ := w.lastCheck(key)
		id, _ := strconv.ParseInt(w.sim.IssueID(key), 10, 64)
		if _, held := c.Held[key]; lc.TS.Before(at) && c.Passed(at, id) && !held {
			w.t.Fatalf("round %d: the cursor (%s, id %d) passed the undispatched change of %s (%s, id %d)", r, c.At, c.AtID, key, at, id)
		}
	}
}

// cycleAll runs one cycle of every poller in round r.
func (w *world) cycleAll(r int) {
	for _, p := range w.pollers {
		p.mustCycle()
		w.check(r)
	}
}

// drain runs rounds until every change was dispatched (at most limit).
func (w *world) drain(from, limit int) int {
	w.t.Helper()
	r := from
	for ; len(w.done) < len(w.arrival); r++ {
		if r-from > limit {
			w.t.Fatalf("%d of %d changes dispatched after %d rounds", len(w.done), len(w.arrival), limit)
		}
		w.cycleAll(r)
		w.clock.Advance(time.Minute)
	}
	return r
}

// exactlyOnce asserts each change was dispatched once per harness.
func (w *world) exactlyOnce() {
	w.t.Helper()
	for k, n := range w.out.count() {
		if n != 1 {
			w.t.Errorf("%s dispatched %d times, want once", k, n)
		}
	}
	for key := range w.arrival {
		if _, ok := w.done[key]; !ok {
			w.t.Errorf("the change on %s was lost", key)
		}
	}
}

func (w *world) warnings(substr string) int { return strings.Count(w.logs.String(), substr) }

// TestCursorNoChangeLost: changes keep arriving while the cursor cannot
// be written (a failing write, a refused read or write) or is corrupt:
// every change is dispatched exactly once and the unusable cursor is
// reported with one warning per process.
func TestCursorNoChangeLost(t *testing.T) {
	cases := []struct {
		name   string
		mode   string
		setup  func(w *world)
		state  string // the cursor state the cycles report
		warn   string // the one warning expected per poller ("" none)
		cursor bool   // a valid cursor exists at the end
		lag    time.Duration
	}{
		{name: "write fails", mode: jirapoll.CursorUser, state: "absent", warn: "discovery cursor could not be written",
			setup: func(w *world) {
				w.sim.InjectFault(jirasim.Fault{Endpoint: userPropPut, Status: 503, Times: -1})
			}},
		{name: "user property forbidden", mode: jirapoll.CursorUser, state: "fallback", warn: "discovery cursor unusable",
			setup: func(w *world) { w.sim.SetPropertyAccess(jirasim.OwnerUser, false, false) }},
		{name: "project property without admin", mode: jirapoll.CursorProject, state: "fallback", warn: "discovery cursor unusable"},
		{name: "corrupt cursor", mode: jirapoll.CursorUser, state: "used", warn: "corrupt discovery cursor", cursor: true,
			setup: func(w *world) {
				w.sim.SetOwnerPropertyDirect(jirasim.OwnerUser, me, cursorKey(), json.RawMessage(`{"at":"yesterday"}`))
			}},
		{name: "healthy", mode: jirapoll.CursorUser, state: "used", cursor: true},
		{name: "search lag under the margin", mode: jirapoll.CursorUser, state: "used", cursor: true, lag: 90 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, keys := newLaggingWorld(t, 40, tc.lag)
			if tc.setup != nil {
				tc.setup(w)
			}
			var last []string
			for _, id := range []string{"a", "b"} {
				w.add(pollerOpts{id: id, n: 2, cursor: tc.mode, observer: func(s poll.CycleStats) { last = append(last, s.Cursor.State) }})
			}
			rng := rand.New(rand.NewPCG(1, 2))
			perm := rng.Perm(len(keys))
			for r := range 6 {
				for _, i := range perm[r*3 : r*3+3] {
					w.comment(keys[i], r)
				}
				w.cycleAll(r)
				w.clock.Advance(time.Minute)
			}
			w.sim.ClearFaults()
			w.drain(6, 20)
			w.exactlyOnce()
			if got := last[len(last)-1]; got != tc.state && !(tc.name == "write fails" && got == "used") {
				t.Errorf("cursor state %q, want %q", got, tc.state)
			}
			if tc.warn != "" {
				if n := w.warnings(tc.warn); n < 1 || n > 2 {
					t.Errorf("%d warnings %q for 2 pollers, want one per poller:\n%s", n, tc.warn, w.logs.String())
				}
			}
			if _, ok := w.cursor(); ok != tc.cursor && tc.mode == jirapoll.CursorUser && tc.name != "write fails" {
				t.Errorf("cursor present %v, want %v", ok, tc.cursor)
			}
		})
	}
}

func cursorKey() string { return cursor.Key(repo) }
