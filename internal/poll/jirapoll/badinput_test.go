package jirapoll_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

const propPUT = "PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"

func TestInvalidJQLNamesTheQuery(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.issue()
	p := e.poller(pollerOpts{out: &recorder{}, queries: []string{"project = PROJ", "projekt = PROJ"}})
	_, err := p.cycle(context.Background())
	if !errors.Is(err, poll.ErrQuery) {
		t.Fatalf("err = %v, want ErrQuery", err)
	}
	if !strings.Contains(err.Error(), `query 2 "projekt = PROJ"`) {
		t.Errorf("error does not name the query: %v", err)
	}
	if n := e.sim.Calls()[propPUT]; n != 0 {
		t.Errorf("%d property writes after a rejected query", n)
	}
}

func TestAuthFailureStopsWithoutWrites(t *testing.T) {
	for _, status := range []int{401, 403} {
		e := newEnv(t, jirasim.Options{})
		k := e.issue()
		e.sim.AddComment(k, alice, "/fs-triage")
		e.sim.InjectFault(jirasim.Fault{Endpoint: "POST /rest/api/3/search/jql", Status: status})
		rec := &recorder{}
		p := e.poller(pollerOpts{out: rec})
		res, err := p.cycle(context.Background())
		if !errors.Is(err, poll.ErrAuth) || !strings.Contains(err.Error(), "credentials") {
			t.Errorf("%d: err = %v, want ErrAuth with a hint about credentials", status, err)
		}
		if res.Stats.Error == "" {
			t.Errorf("%d: stats carry no error", status)
		}
		if n := e.sim.Calls()[propPUT]; n != 0 || len(rec.all()) != 0 {
			t.Errorf("%d: %d writes, %d dispatches after an auth failure", status, n, len(rec.all()))
		}
	}
}

// An auth failure after locks were written rolls them back.
func TestAuthFailureMidCycleRollsBackLocks(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issue()
	e.sim.InjectFault(jirasim.Fault{Endpoint: "POST /rest/api/3/changelog/bulkfetch", Status: 403})
	p := e.poller(pollerOpts{out: &recorder{}})
	if _, err := p.cycle(context.Background()); !errors.Is(err, poll.ErrAuth) {
		t.Fatalf("err = %v, want ErrAuth", err)
	}
	if _, ok := e.lock(k); ok {
		t.Error("lock left behind after the cycle stopped")
	}
	if _, ok := e.lastCheck(k); ok {
		t.Error("lastCheck written after the cycle stopped")
	}
}

// Corrupt values never crash a cycle: a corrupt lock counts as stale, a
// corrupt or future lastCheck falls back to the issue's creation.
func TestCorruptValuesAreTreatedSafely(t *testing.T) {
	future, _ := json.Marshal(map[string]any{"ts": epoch.Add(48 * time.Hour)})
	cases := []struct {
		name           string
		lock, check    string
		corrupt, stale int
	}{
		{"lock not an object", `"garbage"`, "", 1, 1},
		{"lock wrong type", `42`, "", 1, 1},
		{"lock unknown phase", `{"id":"x","ts":"2026-01-01T00:00:00Z","phase":"zzz"}`, "", 1, 1},
		{"lock far in the future", `{"id":"x","ts":"2999-01-01T00:00:00Z","phase":"pending","runs":[]}`, "", 0, 1},
		{"lastCheck wrong type", "", `{"ts":true}`, 1, 0},
		{"lastCheck garbage string", "", `"yesterday"`, 1, 0},
		{"lastCheck future", "", string(future), 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			k := e.issue()
			e.sim.AddComment(k, alice, "/fs-triage")
			if tc.lock != "" {
				e.sim.SetPropertyDirect(k, lockKey(), json.RawMessage(tc.lock))
			}
			if tc.check != "" {
				e.sim.SetPropertyDirect(k, checkKey(), json.RawMessage(tc.check))
			}
			rec := &recorder{}
			st := e.poller(pollerOpts{out: rec}).mustCycle()
			if st.Corrupt != tc.corrupt || st.LocksStaleRemoved != tc.stale {
				t.Errorf("corrupt_values = %d, locks_stale_removed = %d, want %d and %d",
					st.Corrupt, st.LocksStaleRemoved, tc.corrupt, tc.stale)
			}
			if n := rec.count()[k+"/triage"]; n != 1 {
				t.Errorf("%d triage dispatches, want 1 (stats %+v)", n, st)
			}
			lc, ok := e.lastCheck(k)
			if !ok || lc.TS.After(e.clock.Now()) {
				t.Errorf("lastCheck after the cycle = %+v (present %v)", lc, ok)
			}
		})
	}
}

func TestDeletedIssueIsSkipped(t *testing.T) {
	t.Parallel()
	e, gone, kept := laggingWorld(t)
	// The lagging search still sees both; the deleted one must be skipped.
	e.sim.DeleteIssue(gone)
	rec := &recorder{}
	p := e.poller(pollerOpts{out: rec})
	st, err := p.cycle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := rec.count()
	if c[gone+"/triage"] != 0 {
		t.Error("deleted issue dispatched")
	}
	if c[kept+"/triage"] != 1 {
		t.Errorf("other issue: %d triage dispatches, want 1 (stats %+v)", c[kept+"/triage"], st.Stats)
	}
	if st.Stats.ItemsGone != 1 {
		t.Errorf("items_gone = %d, want 1", st.Stats.ItemsGone)
	}
}

// A lock held by another poller (fresh) keeps the issue out of the cycle;
// the tool's own and other bots' comments never trigger runs.
func TestLockedAndBotActivity(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	keys := e.issues(2, seeded, "")
	locked, botOnly := keys[0], keys[1]
	e.sim.AddComment(locked, alice, "/fs-triage")
	b, _ := json.Marshal(map[string]any{"id": "other", "ts": e.clock.Now(), "phase": "running", "runs": []any{}})
	e.sim.SetPropertyDirect(locked, lockKey(), b)
	e.sim.AddComment(botOnly, "557058:fullsend-bot", "/fs-triage from myself")
	e.sim.AddComment(botOnly, robot, "/fs-triage from an app")
	rec := &recorder{}
	st := e.poller(pollerOpts{out: rec}).mustCycle()
	if len(rec.all()) != 0 {
		t.Fatalf("dispatched %v", rec.count())
	}
	if st.EventsBot != 2 || st.Eligible != 1 {
		t.Errorf("events_bot = %d eligible = %d, want 2 and 1", st.EventsBot, st.Eligible)
	}
	if l, ok := e.lock(locked); !ok || l.ID != "other" {
		t.Errorf("another poller's lock was touched: %+v", l)
	}
	if _, ok := e.lock(botOnly); ok {
		t.Error("lock left on an issue with nothing to dispatch")
	}
	if lc, ok := e.lastCheck(botOnly); !ok || lc.TS.IsZero() {
		t.Error("lastCheck not advanced past bot comments")
	}
}

// --dry-run reads and decides but writes nothing, the shared discovery
// cursor included.
func TestDryRunWritesNothing(t *testing.T) {
	for _, cursor := range []string{"", jirapoll.CursorUser, jirapoll.CursorProject} {
		t.Run("cursor="+cursor, func(t *testing.T) { testDryRunWritesNothing(t, cursor) })
	}
}

func testDryRunWritesNothing(t *testing.T, cursor string) {
	e := newEnv(t, jirasim.Options{})
	k := e.issue()
	e.sim.AddComment(k, alice, "/fs-triage look")
	p := e.poller(pollerOpts{dryRun: true, cursor: cursor})
	res, err := p.cycle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Planned) != 2 || res.Planned[0].PollLock == nil {
		t.Fatalf("planned = %+v, want triage and audit with poll locks", res.Planned)
	}
	for _, r := range res.Planned {
		if r.PollLock.ID != "" || r.PollLock.Property == "" {
			t.Errorf("dry-run poll lock %+v: want where the lock would live and no lock id (none was taken)", r.PollLock)
		}
	}
	if res.Stats.DispatchesScheduled != 0 || res.Stats.RunsPlanned != 2 {
		t.Errorf("stats: %d dispatches scheduled, %d runs planned; want 0 and 2", res.Stats.DispatchesScheduled, res.Stats.RunsPlanned)
	}
	if n := e.sim.Writes(); n != 0 {
		t.Errorf("dry run made %d writes (calls %v)", n, e.sim.Calls())
	}
}

// An issue deleted after it was locked is dropped at verification, whose
// bulk read Jira then rejects; the other issues are verified one by one.
func TestIssueDeletedAfterLocking(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	gone, kept := e.issue(), e.issue()
	p := e.poller(pollerOpts{})
	disc, err := p.drv.Discover(t.Context())
	if err != nil || len(disc.Eligible) != 2 {
		t.Fatalf("discover: %v", err)
	}
	if err := p.drv.Acquire(t.Context(), disc.Eligible); err != nil {
		t.Fatal(err)
	}
	e.sim.DeleteIssue(gone)
	if err := p.drv.Verify(t.Context(), disc.Eligible); err != nil {
		t.Fatal(err)
	}
	for _, it := range disc.Eligible {
		switch it.ID {
		case gone:
			// A property read cannot tell a deleted issue from a deleted
			// lock: either way the issue is dropped untouched.
			if st := it.State(); st != poll.StateGone && st != poll.StateLost {
				t.Errorf("deleted issue: state %v, want gone or lost", st)
			}
		case kept:
			if it.State() != poll.StateHeld || it.Err() != nil {
				t.Errorf("kept issue: %+v", it)
			}
		}
	}
}

// A stale lock on an unchanged issue is removed; a fresh one is kept.
func TestStaleLockOnUnchangedIssueIsRemoved(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	stale, fresh := e.issue(), e.issue()
	for _, k := range []string{stale, fresh} {
		e.seed(k)
	}
	old, _ := json.Marshal(map[string]any{"id": "gone", "ts": e.clock.Now().Add(-time.Hour), "phase": "running", "runs": []any{}})
	now, _ := json.Marshal(map[string]any{"id": "busy", "ts": e.clock.Now(), "phase": "running", "runs": []any{}})
	e.sim.SetPropertyDirect(stale, lockKey(), old)
	e.sim.SetPropertyDirect(fresh, lockKey(), now)
	st := e.poller(pollerOpts{out: &recorder{}}).mustCycle()
	if st.LocksStaleRemoved != 1 || st.Eligible != 0 {
		t.Errorf("locks_stale_removed = %d eligible = %d, want 1 and 0", st.LocksStaleRemoved, st.Eligible)
	}
	if _, ok := e.lock(stale); ok {
		t.Error("stale lock kept")
	}
	if _, ok := e.lock(fresh); !ok {
		t.Error("fresh lock removed")
	}
}
