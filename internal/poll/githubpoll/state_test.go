package githubpoll

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// oneShot runs what one `fullsend poll` process does with github-poll:
// build the input (loading the state), read the tool's own account, run
// one cycle, save the state. It returns the cycle's stats and cost.
func (f *fixture) oneShot(t *testing.T, dir string, log *slog.Logger) (poll.CycleStats, cost) {
	t.Helper()
	before := f.counters()
	var state *pollstate.Dir
	if dir != "" {
		state = pollstate.Open(dir, log, f.clk.Now)
	}
	id := config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: f.base}}
	in, err := build(id, repo, "", token, f.tr, poll.InputEnv{State: state, Now: f.clk.Now, Log: log})
	must(t, err)
	if _, err := in.Account(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := f.cycle(t, in.Driver)
	in.SaveState()
	return st, f.counters().since(before)
}

// TestOneShotIdle: one-shot processes sharing a state directory, after a
// burst of comments whose deliveries were dropped, dispatch each once and
// then cost GitHub's idle figure (at most 3 requests, all 304, no
// rate-limit point), where processes without a state pay for every
// listing and the account each time.
func TestOneShotIdle(t *testing.T) {
	for _, tc := range []struct {
		name         string
		state        bool
		maxRequests  int
		maxPoints    int
		wantNotModif bool
	}{
		{name: "with state", state: true, maxRequests: 3, maxPoints: 0, wantNotModif: true},
		{name: "without state", state: false, maxRequests: 8, maxPoints: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			dir := ""
			if tc.state {
				dir = t.TempDir()
			}
			var ns []int
			for range 5 {
				ns = append(ns, f.openIssue(t, false))
			}
			pr := f.openIssue(t, true)
			for i, n := range append(ns, pr) {
				f.comment(t, n, "burst "+string(rune('a'+i)))
				f.comment(t, n, "burst again "+string(rune('a'+i)))
			}
			f.settle()
			if st, _ := f.oneShot(t, dir, nil); st.DispatchesScheduled != 6 {
				t.Fatalf("burst cycle dispatched %d, want 6 (one per item, its newest comment)", st.DispatchesScheduled)
			}
			var c cost
			for i := range 3 {
				f.clk.Advance(time.Minute)
				var st poll.CycleStats
				if st, c = f.oneShot(t, dir, nil); st.DispatchesScheduled != 0 {
					t.Fatalf("idle one-shot cycle %d dispatched %d", i, st.DispatchesScheduled)
				}
				if c.requests > tc.maxRequests || c.points > tc.maxPoints || tc.wantNotModif && c.notModified != c.requests {
					t.Fatalf("idle one-shot cycle %d cost %+v; want at most %d requests and %d points", i, c, tc.maxRequests, tc.maxPoints)
				}
			}
			t.Logf("idle one-shot cycle after a burst (%s): %d requests, %d rate-limit points", tc.name, c.requests, c.points)
			f.checkOnce(t, 6)
		})
	}
}

// TestStateNotTrusted: whatever the state file holds, a one-shot cycle
// dispatches the change written since the last one once and nothing
// twice: missing, stale, corrupt, foreign and out-of-date (an older
// snapshot restored by a cache) states cost requests only.
func TestStateNotTrusted(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(t *testing.T, f *fixture, file string, old []byte)
		warning string
	}{
		{name: "intact"},
		{name: "missing", mutate: func(t *testing.T, _ *fixture, file string, _ []byte) { must(t, os.Remove(file)) }},
		{name: "stale", mutate: func(_ *testing.T, f *fixture, _ string, _ []byte) { f.clk.Advance(2*DefaultLookback + time.Minute) }, warning: "stale"},
		{name: "corrupt", mutate: func(t *testing.T, _ *fixture, file string, _ []byte) {
			must(t, os.WriteFile(file, []byte(`{"version":1,"input":"github-poll","state":{"floor":`), 0o600))
		}, warning: "corrupt"},
		{name: "another version", mutate: func(t *testing.T, _ *fixture, file string, _ []byte) {
			b, err := os.ReadFile(file)
			must(t, err)
			must(t, os.WriteFile(file, bytes.Replace(b, []byte(`"version":1`), []byte(`"version":99`), 1), 0o600))
		}, warning: "version 99"},
		{name: "another input", mutate: func(t *testing.T, f *fixture, file string, _ []byte) {
			other := pollstate.Open(filepath.Dir(file), nil, f.clk.Now).For(Name, f.base, "acme/other", "fullsend-run.yml", DefaultLookback.String())
			must(t, other.Save(saved{Floor: f.clk.Now(), Handled: map[int]time.Time{1: f.clk.Now().Add(time.Hour)}}))
			must(t, os.Rename(other.Path(), file))
		}, warning: "another input"},
		{name: "out of date", mutate: func(t *testing.T, _ *fixture, file string, old []byte) {
			must(t, os.WriteFile(file, old, 0o600)) // the state before the last cycle
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			dir := t.TempDir()
			a, b := f.openIssue(t, false), f.openIssue(t, true)
			f.oneShot(t, dir, nil)
			file := onlyFile(t, dir)
			old, err := os.ReadFile(file)
			must(t, err)
			f.comment(t, a, "first")
			f.comment(t, b, "first")
			f.settle()
			if st, _ := f.oneShot(t, dir, nil); st.DispatchesScheduled != 2 {
				t.Fatalf("dispatched %d, want 2", st.DispatchesScheduled)
			}
			if tc.mutate != nil {
				tc.mutate(t, f, file, old)
			}
			f.comment(t, a, "second")
			f.settle()
			var logs bytes.Buffer
			st, c := f.oneShot(t, dir, slog.New(slog.NewTextHandler(&logs, nil)))
			if st.DispatchesScheduled != 1 {
				t.Fatalf("dispatched %d after the state was %s, want 1 (the new comment)", st.DispatchesScheduled, tc.name)
			}
			if tc.warning != "" && !strings.Contains(logs.String(), tc.warning) {
				t.Fatalf("no warning %q in %q", tc.warning, logs.String())
			}
			f.checkOnce(t, 3)
			if st, _ := f.oneShot(t, dir, nil); st.DispatchesScheduled != 0 {
				t.Fatalf("the cycle after dispatched %d", st.DispatchesScheduled)
			}
			f.checkOnce(t, 3)
			t.Logf("state %s: the cycle with a new comment cost %+v", tc.name, c)
		})
	}
}

func onlyFile(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	if len(ents) != 1 {
		t.Fatalf("state directory holds %v, want one file", ents)
	}
	return filepath.Join(dir, ents[0].Name())
}
