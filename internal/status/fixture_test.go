package status

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// t0 is the fixed "now" of every status snapshot in these tests.
var t0 = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

const (
	token     = "s3cret-token"
	repo      = "acme/platform"
	poller    = "3f2a9c1e-poller-a"
	other     = "7b41d0aa-poller-b"
	dev       = "acct-dev"
	outsider  = "acct-outsider"
	botAcct   = "acct-bot"
	siteLabel = "http://jira.test"
)

// world is a Jira emulator and a .fullsend/ pointing at it.
type world struct {
	t    *testing.T
	sim  *jirasim.Server
	base string
	dir  string
	clk  *fakeclock.Clock
	keys keys
}

func newWorld(t *testing.T) *world {
	t.Helper()
	clk := fakeclock.New(t0.Add(-time.Hour))
	s := jirasim.New(jirasim.Options{RequiredToken: token, Now: clk.Now})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.AddProject("PROJ", "")
	s.SetRole("PROJ", "Developers", dev)
	s.AddUser(jirasim.User{AccountID: botAcct, AccountType: "app", DisplayName: "fullsend bot"})
	s.SetMyself(botAcct)
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": `version: 1
repo: ` + repo + `
agents:
  - name: triage
    source: harness/triage.yaml
poll:
  input_drivers:
    - type: jira-poll
      connection:
        base_url: ` + base + `
      project: PROJ
      queries:
        - project = PROJ AND statusCategory != Done
      lock:
        stale_threshold: 900s
      cursor:
        account_id: ` + botAcct + `
  output_driver: gha-dispatch
outputs:
  gha-dispatch:
    workflow: fullsend-run.yml
    ref: main
`,
		"harness/triage.yaml": `role: triage
trigger: >-
  event.transition.kind == "comment_added" &&
  event.transition.comment.command == "/fs-triage"
run:
  command: ["true"]
`,
	})
	return &world{t: t, sim: s, base: base, dir: dir, clk: clk, keys: keysOf(repo)}
}

// issue adds an issue at the clock's time, then moves the clock a minute.
func (w *world) issue(summary string) string {
	k := w.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: summary, Reporter: dev})
	w.clk.Set(w.clk.Now().Add(time.Minute))
	return k
}

// set writes a property as a poller would, without an HTTP call.
func (w *world) set(key, prop string, v any) {
	b, ok := v.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			w.t.Fatal(err)
		}
	}
	w.sim.SetPropertyDirect(key, prop, b)
}

func (w *world) lock(key, id, phase string, age time.Duration, runs ...string) {
	l := polllock.Lock{ID: id, TS: t0.Add(-age), Phase: phase}
	for _, r := range runs {
		l.Runs = append(l.Runs, planRef(r))
	}
	w.set(key, w.keys.lock, l.Marshal())
}

// options are the Options of a snapshot at t0 against w.
func (w *world) options(out *bytes.Buffer) Options {
	env := map[string]string{"JIRA_TOKEN": token}
	return Options{ConfigDir: w.dir, Getenv: func(k string) string { return env[k] }, Out: out, Now: func() time.Time { return t0 }}
}

// run takes one snapshot and returns the output with the emulator's
// address replaced by siteLabel.
func (w *world) run(o Options) (string, error) {
	w.t.Helper()
	w.clk.Set(t0)
	w.sim.ResetCalls()
	err := Run(context.Background(), o)
	return strings.ReplaceAll(o.Out.(*bytes.Buffer).String(), w.base, siteLabel), err
}

// writes are the emulator's calls that change something.
func (w *world) writes() map[string]int {
	out := map[string]int{}
	for ep, n := range w.sim.Calls() {
		if !strings.HasPrefix(ep, "GET ") && ep != "POST /rest/api/3/search/jql" && ep != "POST /rest/api/3/changelog/bulkfetch" {
			out[ep] = n
		}
	}
	return out
}

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// metricsServer serves a poller's /metrics and /healthz as text.
func metricsServer(t *testing.T, metrics string, health string, code int) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(metrics)) })
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(code)
		w.Write([]byte(health))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

// cursorRead is the one call the default cursor reader makes here (the
// account id is configured).
const cursorRead = "GET /rest/api/3/user/properties/{propertyKey}"

// onlyReads reports whether calls are one search plus at most one cursor
// read.
func onlyReads(calls map[string]int) bool {
	n := calls["POST /rest/api/3/search/jql"]
	for ep, c := range calls {
		if ep != "POST /rest/api/3/search/jql" && (ep != cursorRead || c != 1) {
			return false
		}
	}
	return n == 1
}

// fakeCursor reads a fixed cursor and counts as no Jira call.
func fakeCursor(c Cursor) CursorReader {
	return func(context.Context, *jira.Client, string, config.InputDriver) (Cursor, bool, error) {
		return c, true, nil
	}
}

// snapshot takes one Report at t0 without rendering it.
func (w *world) snapshot(t *testing.T, o Options) (*Report, error) {
	t.Helper()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	w.clk.Set(t0)
	s := &snapshotter{o: o}
	var err error
	if s.cfg, s.reg, err = loadDir(o); err != nil {
		return nil, err
	}
	return s.snapshot(context.Background(), t0)
}

// editConfig rewrites the world's config.yaml through edit.
func (w *world) editConfig(edit func(string) string) {
	w.t.Helper()
	p := filepath.Join(w.dir, "config.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
		w.t.Fatal(err)
	}
}
