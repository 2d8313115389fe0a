// Package e2e_test runs `fullsend poll` and `fullsend poll cancel` against
// the Jira and GitHub emulators: a Jira comment dispatches the right
// workflow with the right inputs, the run id lands in the poll lock, and
// cancel cancels that run and removes the lock while leaving lastCheck.
package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/cli"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestMain(m *testing.M) {
	code := m.Run()
	removeKillBinary()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

const (
	jiraToken = "jira-e2e-secret"
	ghToken   = "ghs_e2eSecretToken"
	alice     = "acct-alice" // Developers → write
)

type world struct {
	clock *jiraClock
	jira  *jirasim.Server
	gh    *githubsim.Server
	dir   string
	env   map[string]string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	clock := &jiraClock{}
	clock.lag.Store(int64(time.Second))
	js := jirasim.New(jirasim.Options{RequiredToken: jiraToken, Now: clock.now})
	jbase, err := js.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(js.Close)
	js.AddProject("PROJ", "Platform")
	js.SetRole("PROJ", "Developers", alice)

	gs := githubsim.New(githubsim.Options{Token: ghToken, Repos: []githubsim.Repo{{
		FullName: "acme/platform", DefaultBranch: "main",
		Workflows: []githubsim.Workflow{{File: "fullsend-run.yml", Inputs: plan.Names, Required: plan.Always}},
	}}})
	gbase, err := gs.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)

	w := &world{clock: clock, jira: js, gh: gs, dir: t.TempDir(), env: map[string]string{
		"JIRA_TOKEN": jiraToken, "GITHUB_TOKEN": ghToken, "GITHUB_API_URL": gbase,
	}}
	w.write(t, "config.yaml", fmt.Sprintf(`version: 1
repo: acme/platform
agents:
  - name: triage
    source: triage.yaml
poll:
  input_drivers:
    - type: jira-poll
      connection:
        base_url: %s
        token_env: JIRA_TOKEN
      project: PROJ
      queries: ["project = PROJ AND statusCategory != Done"]
      lock:
        jitter_min: 1ms
        jitter_max: 2ms
  output_driver: gha-dispatch
outputs:
  gha-dispatch:
    workflow: fullsend-run.yml
`, jbase))
	w.write(t, "triage.yaml", `role: triage
trigger: >-
  event.transition.kind == "comment_added" &&
  event.transition.comment.command == "/fs-triage"
`)
	return w
}

func (w *world) write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// jiraClock is the Jira emulator's clock. It runs with the real time but
// starts lag behind it, so that a test can place a change strictly after an
// earlier one by letting the clock catch up instead of sleeping; it never
// runs ahead of the poller's own clock.
type jiraClock struct{ lag atomic.Int64 }

func (c *jiraClock) now() time.Time { return time.Now().Add(-time.Duration(c.lag.Load())) }

// catchUp moves the clock forward by its lag, to the real time.
func (c *jiraClock) catchUp() { c.lag.Store(0) }

// commentAfterLastCheck adds an issue whose lastCheck is seeded at the
// emulator's now and then, a second later on the emulator's clock, a
// comment by alice: the comment is the only change the next poll sees.
func (w *world) commentAfterLastCheck(t *testing.T, summary, text string) (key, lockProp, checkProp string) {
	t.Helper()
	key = w.jira.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: summary, Reporter: alice})
	lockProp, checkProp = polllock.Keys("acme/platform")
	seeded, err := json.Marshal(lastcheck.LastCheck{TS: w.clock.now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	w.jira.SetPropertyDirect(key, checkProp, seeded)
	w.clock.catchUp()
	w.jira.AddComment(key, alice, text)
	return key, lockProp, checkProp
}

// run executes fullsend with the world's config and environment.
func (w *world) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr syncio.Buffer
	app := &cli.App{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return w.env[k] }}
	code := cli.Run(context.Background(), app, append([]string{"--config-dir", w.dir, "--log-format", "json"}, args...))
	for _, secret := range []string{jiraToken, ghToken} {
		if strings.Contains(stdout.String()+stderr.String(), secret) {
			t.Fatalf("a token was printed")
		}
	}
	return code, stdout.String(), stderr.String()
}

func TestPollDispatchesToGitHubAndCancel(t *testing.T) {
	w := newWorld(t)
	key, lockProp, checkProp := w.commentAfterLastCheck(t, "Importer drops rows", "/fs-triage check the acceptance criteria")

	code, _, logs := w.run(t, "poll")
	if code != 0 {
		t.Fatalf("poll exit %d:\n%s", code, logs)
	}
	runs := w.gh.Runs()
	if len(runs) != 1 {
		t.Fatalf("GitHub runs = %d, want 1\n%s", len(runs), logs)
	}
	r := runs[0]
	if r.Workflow != "fullsend-run.yml" || r.Ref != "main" || r.Repo != "acme/platform" {
		t.Errorf("dispatched %s %s on %s", r.Repo, r.Workflow, r.Ref)
	}
	if len(r.Inputs) != len(plan.Always) {
		t.Errorf("inputs = %v, want the nine", r.Inputs)
	}
	ev, err := event.Decode([]byte(r.Inputs[plan.InNormalizedEvent]))
	if err != nil {
		t.Fatalf("normalized_event input: %v", err)
	}
	wantKey := fmt.Sprintf("triage:acme/platform:jira:work_item:%d", ev.Entity.ID)
	want := map[string]string{
		plan.InAgent: "triage", plan.InRole: "triage", plan.InSourceRepo: "acme/platform",
		plan.InEventType: event.CommentAdded, plan.InSerializationKey: wantKey,
	}
	for k, v := range want {
		if r.Inputs[k] != v {
			t.Errorf("input %s = %q, want %q", k, r.Inputs[k], v)
		}
	}
	if ev.Entity.Key != key || ev.Transition.Comment == nil || ev.Transition.Comment.Command != "/fs-triage" {
		t.Errorf("normalized_event = %+v", ev)
	}
	var pl plan.PollLock
	if err := json.Unmarshal([]byte(r.Inputs[plan.InPollLock]), &pl); err != nil ||
		pl.Driver != "jira-poll" || pl.Property != key+"/"+lockProp || pl.ID == "" {
		t.Errorf("poll_lock input = %q (%v)", r.Inputs[plan.InPollLock], err)
	}
	var wi plan.WorkItem
	if err := json.Unmarshal([]byte(r.Inputs[plan.InWorkItem]), &wi); err != nil || wi.Key != key || wi.Source != "jira" {
		t.Errorf("work_item input = %q (%v)", r.Inputs[plan.InWorkItem], err)
	}

	raw, ok := w.jira.Property(key, lockProp)
	if !ok {
		t.Fatalf("no lock after dispatch\n%s", logs)
	}
	lock, err := polllock.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	// The lock lists a placeholder for the run, which claims it when it
	// starts: lastCheck records the run under the lock's id, for cancel.
	wantRef := plan.Ref{Driver: "gha-dispatch", ID: fmt.Sprint(r.ID), URL: r.HTMLURL}
	if lock.Phase != polllock.PhasePending || !slices.Equal(lock.Runs, polllock.Placeholders("gha-dispatch", 1)) || lock.ID != pl.ID {
		t.Errorf("lock = %+v, want pending with one placeholder and id %s", lock, pl.ID)
	}
	checkBefore, _ := w.jira.Property(key, checkProp)
	lc, err := lastcheck.Parse(checkBefore)
	if err != nil || lc.Lock != pl.ID || len(lc.Runs) != 1 || lc.Runs[0] != wantRef {
		t.Errorf("lastCheck = %s (%v), want the run %+v under lock id %s", checkBefore, err, wantRef, pl.ID)
	}

	code, out, logs := w.run(t, "poll", "cancel", "--issue", key)
	if code != 0 {
		t.Fatalf("poll cancel exit %d:\n%s", code, logs)
	}
	if !strings.Contains(out, "cancelled run "+wantRef.ID) {
		t.Errorf("cancel output does not say what it cancelled:\n%s", out)
	}
	if got, _ := w.gh.Run(r.ID); got.Conclusion != githubsim.ConclusionCancelled {
		t.Errorf("run after cancel: %s/%s", got.Status, got.Conclusion)
	}
	if _, ok := w.jira.Property(key, lockProp); ok {
		t.Error("lock still present after cancel")
	}
	if checkAfter, _ := w.jira.Property(key, checkProp); !bytes.Equal(checkAfter, checkBefore) {
		t.Errorf("lastCheck changed by cancel: %s → %s", checkBefore, checkAfter)
	}
	if w.gh.Calls(githubsim.EndpointCancelRun) != 1 || w.gh.Calls(githubsim.EndpointDispatch) != 1 {
		t.Errorf("GitHub calls: dispatch %d, cancel %d", w.gh.Calls(githubsim.EndpointDispatch), w.gh.Calls(githubsim.EndpointCancelRun))
	}
}

// TestPollDispatchFailureLeavesNoLock: a permanent GitHub failure (the
// workflow is missing) leaves no lock and does not advance lastCheck.
func TestPollDispatchFailureLeavesNoLock(t *testing.T) {
	w := newWorld(t)
	w.write(t, "triage.yaml", `role: triage
trigger: 'event.transition.kind == "comment_added"'
dispatch:
  workflow: missing.yml
`)
	key, lockProp, checkProp := w.commentAfterLastCheck(t, "x", "hello")
	seeded, _ := w.jira.Property(key, checkProp)

	code, _, logs := w.run(t, "poll")
	if code != 1 {
		t.Errorf("poll exit %d after a failed dispatch, want 1\n%s", code, logs)
	}
	if len(w.gh.Runs()) != 0 {
		t.Fatal("a run was started")
	}
	if !strings.Contains(logs, "workflow missing.yml not found in acme/platform") {
		t.Errorf("logs do not explain the failure:\n%s", logs)
	}
	if _, ok := w.jira.Property(key, lockProp); ok {
		t.Error("lock left after a failed dispatch")
	}
	// The position stays; the dispatch intent is cleared: GitHub refused
	// the dispatch (404), so nothing started and the next cycle dispatches
	// again at once, without waiting out the settle time (docs/polling.md,
	// "Delivery contract").
	after, _ := w.jira.Property(key, checkProp)
	before, _ := lastcheck.Parse(seeded)
	lc, err := lastcheck.Parse(after)
	if err != nil || !lc.TS.Equal(before.TS) || len(lc.Harness) != len(before.Harness) {
		t.Errorf("lastCheck advanced after a failed dispatch: %s → %s (%v)", seeded, after, err)
	}
	if len(lc.Intents) != 0 {
		t.Errorf("lastCheck kept the intent of a refused dispatch: %s", after)
	}
}
