package gitlabpoll

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/output/jsonout"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// oneShot runs what one `fullsend poll` process does with gitlab-poll:
// build the input (loading the state in dir; "" none), read the tool's
// own account, run one cycle through out, save the state. It returns
// the cycle's stats and the GitLab calls it cost.
func (f *fixture) oneShot(t *testing.T, dir string, grace time.Duration, out output.Driver, log *slog.Logger) (poll.CycleStats, int) {
	t.Helper()
	before := f.sim.CallsTotal()
	var state *pollstate.Dir
	if dir != "" {
		state = pollstate.Open(dir, log, f.clk.Now)
	}
	id := config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: f.base}, Grace: grace}
	in, err := build(id, project, project, f.sim.Token(), f.tr, poll.InputEnv{State: state, Now: f.clk.Now, Log: log})
	must(t, err)
	if _, err := in.Account(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := f.runCycle(t, in, out)
	must(t, err)
	in.SaveState()
	return st, f.sim.CallsTotal() - before
}

// newStateFixture is newFixture whose token is the tool's own bot's.
func newStateFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.sim.SetTokenUser(f.sim.AddUser("fullsend-bot", true).ID)
	return f
}

// printed runs a one-shot cycle through the json output and returns the
// note bodies of the printed plan.
func (f *fixture) printed(t *testing.T, dir string, log *slog.Logger) []string {
	t.Helper()
	var buf bytes.Buffer
	out, err := jsonout.New(drivername.JSON, &buf)
	must(t, err)
	f.oneShot(t, dir, DefaultGrace, out, log)
	must(t, out.Close(context.Background()))
	var plan []jsonout.Entry
	must(t, json.Unmarshal(buf.Bytes(), &plan))
	var bodies []string
	for _, e := range plan {
		var ev struct {
			Transition struct {
				Comment struct {
					Body string `json:"body"`
				} `json:"comment"`
			} `json:"transition"`
		}
		must(t, json.Unmarshal([]byte(e.NormalizedEvent), &ev))
		bodies = append(bodies, ev.Transition.Comment.Body)
	}
	return bodies
}

// TestOneShotPlanOutput: one-shot cycles printing the plan (the json
// output, which dispatches nothing GitLab could record) with the default
// grace print every note once: none lost, none twice. Without the state
// each process prints again every item of the lookback window.
func TestOneShotPlanOutput(t *testing.T) {
	for _, withState := range []bool{true, false} {
		t.Run(fmt.Sprint("state=", withState), func(t *testing.T) {
			f := newStateFixture(t)
			dir := ""
			if withState {
				dir = t.TempDir()
			}
			m := f.openMR(t)
			is, _, err := f.sim.CreateIssue(project, f.alice.ID, "t", "d", nil)
			must(t, err)
			f.clk.Advance(DefaultLookback + time.Hour)
			note := func(kind string, iid int64, body string) {
				f.clk.Advance(time.Second)
				_, _, err := f.sim.AddNote(project, kind, iid, f.alice.ID, body)
				must(t, err)
			}
			counts := map[string]int{}
			cycle := func() {
				f.clk.Advance(DefaultGrace + time.Minute)
				for _, b := range f.printed(t, dir, nil) {
					counts[b]++
				}
			}
			note(gitlabsim.NoteableMergeRequest, m.IID, "n1")
			note(gitlabsim.NoteableIssue, is.IID, "n2")
			cycle()
			note(gitlabsim.NoteableMergeRequest, m.IID, "n3")
			cycle()
			cycle() // idle
			note(gitlabsim.NoteableIssue, is.IID, "n4")
			f.printed(t, dir, nil) // n4 is younger than the grace: left for the next cycle
			cycle()
			cycle() // idle
			want := map[string]int{"n1": 1, "n2": 1, "n3": 1, "n4": 1}
			same := len(counts) == len(want)
			for b, n := range want {
				same = same && counts[b] == n
			}
			switch {
			case withState && !same:
				t.Fatalf("printed %v, want every note once: %v", counts, want)
			case !withState && same:
				t.Fatalf("without a state printed %v; the one-shot processes were expected to print again", counts)
			}
			t.Logf("notes printed (state=%v): %v", withState, counts)
		})
	}
}

// TestOneShotIdle: 1 000 open merge requests and issues, a burst of
// dropped notes on 20 of them; one-shot processes sharing a state
// dispatch each once, then an idle cycle costs at most 3 GitLab calls
// (the two listings and, at most, the account), where a process
// without the state reads every item of the lookback window again.
func TestOneShotIdle(t *testing.T) {
	f := newStateFixture(t)
	var iids []int64
	for i := range 500 {
		m, _, err := f.sim.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceBranch: fmt.Sprint("b", i),
			TargetBranch: "main", Title: "t", AuthorID: f.alice.ID})
		must(t, err)
		_, _, err = f.sim.CreateIssue(project, f.alice.ID, "t", "d", nil)
		must(t, err)
		if i < 20 {
			iids = append(iids, m.IID)
		}
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	for i, iid := range iids {
		for j := range 3 {
			f.clk.Advance(time.Second)
			_, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, iid, f.alice.ID, fmt.Sprintf("burst %d.%d", i, j))
			must(t, err)
		}
	}
	out, err := gitlabpipeline.New(gitlabpipeline.Options{APIURL: f.base, Token: f.sim.Token(), Project: project, Ref: "main", Transport: f.tr})
	must(t, err)
	dir := t.TempDir()
	f.clk.Advance(time.Minute)
	if st, _ := f.oneShot(t, dir, 0, out, nil); st.DispatchesScheduled != 20 {
		t.Fatalf("burst cycle dispatched %d, want 20", st.DispatchesScheduled)
	}
	var calls int
	for i := range 3 {
		f.clk.Advance(time.Minute)
		var st poll.CycleStats
		if st, calls = f.oneShot(t, dir, 0, out, nil); st.DispatchesScheduled != 0 || calls > 3 {
			t.Fatalf("idle one-shot cycle %d: %d dispatched, %d calls; want 0 and at most 3", i, st.DispatchesScheduled, calls)
		}
	}
	t.Logf("idle one-shot cycle, 1000 items, after a burst of 60 notes on 20: %d GitLab calls with the state", calls)
	st, cold := f.oneShot(t, "", 0, out, nil)
	if st.DispatchesScheduled != 0 {
		t.Fatalf("a process without the state dispatched %d", st.DispatchesScheduled)
	}
	t.Logf("the same cycle without the state: %d GitLab calls", cold)
	if cold <= 3 {
		t.Fatalf("without the state the cycle cost %d calls; the measurement does not show the state's effect", cold)
	}
	for k, n := range f.count(true) {
		if n != 1 {
			t.Fatalf("key %s: %d pipelines", k, n)
		}
	}
}

// TestStateNotTrusted: whatever the state file holds, the next one-shot
// cycle dispatches the note written since the last one once and nothing
// twice.
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
			must(t, os.WriteFile(file, []byte("\x00not json"), 0o600))
		}, warning: "corrupt"},
		{name: "another version", mutate: func(t *testing.T, _ *fixture, file string, _ []byte) {
			b, err := os.ReadFile(file)
			must(t, err)
			must(t, os.WriteFile(file, bytes.Replace(b, []byte(`"version":1`), []byte(`"version":0`), 1), 0o600))
		}, warning: "version 0"},
		{name: "another input", mutate: func(t *testing.T, f *fixture, file string, _ []byte) {
			other := pollstate.Open(filepath.Dir(file), nil, f.clk.Now).For(Name, f.base+"/", "acme/other", "acme/other", DefaultLookback.String())
			must(t, other.Save(saved{Handled: map[string]mark{"!1": {Updated: f.clk.Now(), At: f.clk.Now()}}}))
			must(t, os.Rename(other.Path(), file))
		}, warning: "another input"},
		{name: "out of date", mutate: func(t *testing.T, _ *fixture, file string, old []byte) { must(t, os.WriteFile(file, old, 0o600)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newStateFixture(t)
			out, err := gitlabpipeline.New(gitlabpipeline.Options{APIURL: f.base, Token: f.sim.Token(), Project: project, Ref: "main", Transport: f.tr})
			must(t, err)
			dir := t.TempDir()
			m := f.openMR(t)
			f.oneShot(t, dir, 0, out, nil)
			ents, err := os.ReadDir(dir)
			must(t, err)
			if len(ents) != 1 {
				t.Fatalf("state directory: %v", ents)
			}
			file := filepath.Join(dir, ents[0].Name())
			old, err := os.ReadFile(file)
			must(t, err)
			add := func(body string) {
				f.clk.Advance(time.Second)
				_, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, body)
				must(t, err)
				f.settle()
			}
			add("first")
			if st, _ := f.oneShot(t, dir, 0, out, nil); st.DispatchesScheduled != 1 {
				t.Fatalf("dispatched %d, want 1", st.DispatchesScheduled)
			}
			if tc.mutate != nil {
				tc.mutate(t, f, file, old)
			}
			add("second")
			var logs bytes.Buffer
			if st, _ := f.oneShot(t, dir, 0, out, slog.New(slog.NewTextHandler(&logs, nil))); st.DispatchesScheduled != 1 {
				t.Fatalf("dispatched %d after the state was %s, want 1", st.DispatchesScheduled, tc.name)
			}
			if tc.warning != "" && !strings.Contains(logs.String(), tc.warning) {
				t.Fatalf("no warning %q in %q", tc.warning, logs.String())
			}
			if st, _ := f.oneShot(t, dir, 0, out, nil); st.DispatchesScheduled != 0 {
				t.Fatalf("the cycle after dispatched %d", st.DispatchesScheduled)
			}
			all := f.count(true)
			if len(all) != 2 {
				t.Fatalf("pipelines per key %v, want the two notes", all)
			}
			for k, n := range all {
				if n != 1 {
					t.Fatalf("key %s: %d pipelines", k, n)
				}
			}
		})
	}
}
