package jirapoll_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

const (
	myselfCall = "GET /rest/api/3/myself"
	rolesCall  = "GET /rest/api/3/project/{projectIdOrKey}/role"
)

// oneShot runs what one `fullsend poll` process does with jira-poll: a
// new client and driver, started from the state in dir (nil: none) for
// the credentials fingerprinted cred, one cycle, the state saved. It
// returns the cycle's stats and the Jira calls it cost by endpoint.
func (e *env) oneShot(dir *pollstate.Dir, cred string, po pollerOpts) (poll.CycleStats, map[string]int) {
	e.t.Helper()
	p := e.poller(po)
	st := jirapoll.LoadState(dir.For(jirapoll.Name, e.base), p.client, cred, "")
	e.sim.ResetCalls()
	stats := p.mustCycle()
	st.Save()
	st.Close()
	return stats, e.sim.Calls()
}

// TestOneShotIdle: one-shot processes sharing a state directory, over
// 2 000 issues with spread or identical update times, walk the backlog
// within ⌈2000 ÷ 100⌉ + 2 cycles, then an idle cycle costs at most 2
// Jira calls (the cursor and one search: no /myself), before and after a
// burst of comments; processes without a state pay /myself each time.
// Identical update times are the numeric reading's (only there can a
// position be inside an instant, keyset.go).
func TestOneShotIdle(t *testing.T) {
	const n = 2000
	for _, tc := range []struct {
		name  string
		tied  bool
		state bool
		max   int
	}{
		{"spread", false, true, 2},
		{"tied", true, true, 2},
		{"spread without state", false, false, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := jirasim.Options{}
			if tc.tied {
				opts.KeyComparison = jirasim.KeysNumeric
			}
			e := newEnv(t, opts)
			e.worldClient = true
			var keys []string
			if tc.tied {
				keys = e.plateau(n)
			} else {
				keys = e.issues(n, seeded, "")
			}
			e.clock.Advance(10 * time.Minute)
			var dir *pollstate.Dir
			if tc.state {
				dir = pollstate.Open(t.TempDir(), nil, e.clock.Now)
			}
			out := &recorder{after: e.release}
			po := pollerOpts{cursor: jirapoll.CursorUser, stale: 10 * time.Minute, out: out}
			idleAfter := func(what string, limit int) {
				t.Helper()
				for cycles, idle := 0, 0; idle < 3; cycles++ {
					if cycles == limit {
						t.Fatalf("%s: still not idle after %d one-shot cycles", what, cycles)
					}
					_, calls := e.oneShot(dir, "cred", po)
					if got := sumCalls(calls); got <= tc.max {
						idle++
						t.Logf("%s: idle one-shot cycle: %d calls", what, got)
					} else if idle > 0 {
						t.Fatalf("%s: an idle cycle cost %d calls again: %v", what, got, calls)
					}
					e.clock.Advance(time.Minute)
				}
			}
			idleAfter("warm-up", n/100+2+3)
			e.sim.AddComment(keys[n/2], alice, "/fs-triage")
			e.sim.AddComment(keys[7], alice, "/fs-triage")
			if st, _ := e.oneShot(dir, "cred", po); st.DispatchesScheduled != 4 {
				t.Fatalf("dispatched %d runs, want 4 (triage and audit on 2 issues)", st.DispatchesScheduled)
			}
			idleAfter("after the burst", 8)
			for k, c := range out.count() {
				if c != 1 {
					t.Fatalf("%s dispatched %d times", k, c)
				}
			}
		})
	}
}

// TestOneShotAccountAndRoles: a process started from the state reads
// neither /myself nor the project roles the last one read; roles older
// than the client's cache time (10 minutes) are read again, so
// permissions stay current; the account saved for other credentials,
// or in a state older than a day, is not used.
func TestOneShotAccountAndRoles(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.worldClient = true
	keys := e.issues(3, seeded, "")
	dir := pollstate.Open(t.TempDir(), nil, e.clock.Now)
	out := &recorder{after: e.release}
	po := pollerOpts{cursor: jirapoll.CursorUser, out: out}
	step := func(what string, key, cred string, wantMyself, wantRoles bool) {
		t.Helper()
		e.sim.AddComment(key, alice, "/fs-triage")
		e.clock.Advance(time.Second)
		st, calls := e.oneShot(dir, cred, po)
		if st.DispatchesScheduled != 2 {
			t.Fatalf("%s: dispatched %d, want 2", what, st.DispatchesScheduled)
		}
		if got := calls[myselfCall] > 0; got != wantMyself {
			t.Fatalf("%s: /myself read: %v, want %v (%v)", what, got, wantMyself, calls)
		}
		if got := calls[rolesCall] > 0; got != wantRoles {
			t.Fatalf("%s: roles read: %v, want %v (%v)", what, got, wantRoles, calls)
		}
		e.release(out.all()[len(out.all())-1])
	}
	step("first process", keys[0], "cred", true, true)
	e.clock.Advance(5 * time.Minute)
	step("5 minutes later", keys[1], "cred", false, false)
	e.clock.Advance(6 * time.Minute)
	step("11 minutes after the roles were read", keys[2], "cred", false, true)
	step("other credentials", keys[0], "other", true, false)
	e.clock.Advance(25 * time.Hour)
	step("a day later", keys[1], "other", true, true)
}

// TestOneShotStateIgnored: a corrupt or foreign state is ignored with a
// warning; the process reads what it needs and dispatches as without it.
func TestOneShotStateIgnored(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.worldClient = true
	keys := e.issues(1, seeded, "")
	root := t.TempDir()
	var logs bytes.Buffer
	dir := pollstate.Open(root, slog.New(slog.NewTextHandler(&logs, nil)), e.clock.Now)
	other := dir.For(jirapoll.Name, e.base+"/other")
	if err := other.Save(map[string]any{"account": map[string]string{"credential": "cred", "id": "acct-someone-else"}}); err != nil {
		t.Fatal(err)
	}
	mine := dir.For(jirapoll.Name, e.base)
	if err := renameFile(other.Path(), mine.Path()); err != nil {
		t.Fatal(err)
	}
	out := &recorder{after: e.release}
	e.sim.AddComment(keys[0], alice, "/fs-triage")
	e.clock.Advance(time.Second)
	st, calls := e.oneShot(dir, "cred", pollerOpts{cursor: jirapoll.CursorUser, out: out})
	if st.DispatchesScheduled != 2 || calls[myselfCall] != 1 || !strings.Contains(logs.String(), "another input") {
		t.Fatalf("dispatched %d, calls %v, log %q: want 2 runs, /myself read, a warning", st.DispatchesScheduled, calls, logs.String())
	}
}

func renameFile(from, to string) error { return os.Rename(from, to) }

// TestOneShotSharing: a one-shot process started from its poller's state
// comes back as that poller (the id the cursor lists) and shares work
// from its first discovery, so two one-shot pollers split the eligible
// issues as --watch pollers do; every change is dispatched once. Without
// a state every process is a stranger the cursor never lists.
func TestOneShotSharing(t *testing.T) {
	for _, withState := range []bool{true, false} {
		t.Run(fmt.Sprint("state=", withState), func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			e.worldClient = true
			keys := e.issues(80, seeded, "")
			e.clock.Advance(time.Minute)
			dirs := map[string]*pollstate.Dir{}
			for _, name := range []string{"a", "b"} {
				if withState {
					dirs[name] = pollstate.Open(t.TempDir(), nil, e.clock.Now)
				}
			}
			out := &recorder{after: e.release}
			process := func(name string, n int) (*poller, *jirapoll.State) {
				p := e.poller(pollerOpts{id: fmt.Sprintf("%s-%d", name, n), cursor: jirapoll.CursorUser, stale: 10 * time.Minute, out: out})
				st := jirapoll.LoadState(dirs[name].For(jirapoll.Name, e.base), p.client, "cred", "")
				st.Attach(p.drv)
				return p, st
			}
			for r := range 4 { // the pollers get listed (they write the cursor in cycles with work)
				for _, k := range keys[40+8*r : 48+8*r] { // more than one poller's N
					e.sim.AddComment(k, alice, "/fs-triage")
				}
				e.clock.Advance(time.Second)
				for _, name := range []string{"a", "b"} {
					p, st := process(name, r)
					p.mustCycle()
					st.Save()
					st.Close()
				}
				e.clock.Advance(time.Minute)
			}
			for _, k := range keys[:30] {
				e.sim.AddComment(k, alice, "/fs-triage")
			}
			e.clock.Advance(time.Second)
			p, st := process("a", 9)
			disc, err := p.drv.Discover(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			// A second process from the same directory while the first
			// runs is not that poller: it keeps its own id.
			if withState {
				before, _ := e.cursor()
				twin, tst := process("a", 99)
				if _, err := twin.drv.Discover(t.Context()); err != nil {
					t.Fatal(err)
				}
				tst.Save()
				tst.Close()
				c, _ := e.cursor()
				wrote := !c.TS.Equal(before.TS)
				if !c.Pollers["a-99"].IsZero() || wrote && c.By != "a-99" {
					t.Fatalf("a concurrent process took the poller's id or was listed: %+v", c)
				}
			}
			st.Close()
			c, _ := e.cursor()
			switch {
			case withState && (len(c.Pollers) != 2 || c.Pollers["a-0"].IsZero() || c.Pollers["b-0"].IsZero()):
				t.Fatalf("the cursor lists %v, want the pollers' first ids a-0 and b-0", c.Pollers)
			case withState && (!disc.Ordered || disc.Cursor.Shared == 0 || len(disc.Eligible) == 0):
				t.Fatalf("a one-shot process with its state kept %d and left %d (ordered %v): want a share", len(disc.Eligible), disc.Cursor.Shared, disc.Ordered)
			case !withState && (len(c.Pollers) != 0 || disc.Cursor.Shared != 0):
				t.Fatalf("without a state: the cursor lists %v, %d left to others; want no sharing", c.Pollers, disc.Cursor.Shared)
			}
			for r := 10; r < 20; r++ {
				for _, name := range []string{"a", "b"} {
					p, st := process(name, r)
					p.mustCycle()
					st.Save()
					st.Close()
				}
				e.clock.Advance(time.Minute)
			}
			got := out.count()
			for _, k := range append(keys[:30:30], keys[40:72]...) {
				if got[k+"/triage"] != 1 {
					t.Fatalf("%s: triage dispatched %d times, want once (%v)", k, got[k+"/triage"], got)
				}
			}
		})
	}
}
