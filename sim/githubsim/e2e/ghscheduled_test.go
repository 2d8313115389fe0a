package e2e_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cli"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// ghWorld is a GitHub-only world: `fullsend poll` with the github-poll
// input and gha-dispatch, scheduled discovery as policy says ("" leaves
// it out), an entity-source harness "agent" over needs-agent labels
// (retry max 1, backoff 1s), GitHub's clock a fake one.
type ghWorld struct {
	gh  *githubsim.Server
	clk *fakeclock.Clock
	dir string
	env map[string]string
}

func newGHWorld(t *testing.T, policy string) *ghWorld {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	gs := githubsim.New(githubsim.Options{Token: ghToken, Now: clk.Now, Repos: []githubsim.Repo{{
		FullName: "acme/platform", DefaultBranch: "main",
		Workflows: []githubsim.Workflow{{File: "fullsend-run.yml", Inputs: plan.Names, Required: plan.Always}},
	}}})
	gbase, err := gs.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	for login, role := range map[string]string{"alice": "write", "mara": "maintain"} {
		if err := gs.SetPermission("acme/platform", login, role); err != nil {
			t.Fatal(err)
		}
	}
	w := &ghWorld{gh: gs, clk: clk, dir: t.TempDir(), env: map[string]string{"GITHUB_TOKEN": ghToken, "GITHUB_API_URL": gbase}}
	auth := ""
	if policy != "" {
		auth = "authorization:\n  scheduled_discovery: " + policy + "\n"
	}
	(&world{dir: w.dir}).write(t, "config.yaml", `version: 1
repo: acme/platform
forge: github
`+auth+`agents:
  - name: agent
    source: agent.yaml
poll:
  input_drivers:
    - type: github-poll
      grace: 0s
  output_driver: gha-dispatch
outputs:
  gha-dispatch:
    workflow: fullsend-run.yml
`)
	(&world{dir: w.dir}).write(t, "agent.yaml", `role: agent
entity:
  sources: [github]
  retry: {max: 1, backoff: 1s}
trigger: 'event == null && "needs-agent" in entity.state.labels'
`)
	return w
}

// poll runs one `fullsend poll` process with the world's state directory.
func (w *ghWorld) poll(t *testing.T) string {
	t.Helper()
	var stdout, stderr syncio.Buffer
	app := &cli.App{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return w.env[k] }}
	code := cli.Run(context.Background(), app, []string{"--config-dir", w.dir, "--log-format", "json", "--log-level", "debug",
		"poll", "--state-dir", w.dir + "/state"})
	if strings.Contains(stdout.String()+stderr.String(), ghToken) {
		t.Fatal("a token was printed")
	}
	if code != 0 && code != 1 {
		t.Fatalf("poll exit %d:\n%s", code, stderr.String())
	}
	return stderr.String()
}

func (w *ghWorld) complete(t *testing.T, r githubsim.Run, conclusion string) {
	t.Helper()
	if err := w.gh.CompleteRun(r.ID, conclusion); err != nil {
		t.Fatal(err)
	}
}

// labelledIssue opens an issue that mara labels needs-agent, then lets a
// minute pass; it returns the issue's number.
func (w *ghWorld) labelledIssue(t *testing.T) int {
	t.Helper()
	n, _, err := w.gh.OpenIssue("acme/platform", githubsim.IssueSpec{Title: "Importer drops rows", Author: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.gh.SetLabel("acme/platform", n, "mara", "needs-agent", true); err != nil {
		t.Fatal(err)
	}
	w.clk.Advance(time.Minute)
	return n
}

// On GitHub, the run records are the receipts: a label with no comment
// dispatches one scheduled run keyed scope @ version, none more while it
// is queued; a failure is retried after the backoff, at most max times,
// then given up on; a person's comment is a new version; a success is
// the receipt, and the tool's own comment no new version.
func TestGitHubScheduledDiscovery(t *testing.T) {
	w := newGHWorld(t, "allow")
	n := w.labelledIssue(t)
	logs := w.poll(t)
	runs := w.gh.Runs()
	if len(runs) != 1 {
		t.Fatalf("runs = %d, want 1\n%s", len(runs), logs)
	}
	var wi plan.WorkItem
	if err := json.Unmarshal([]byte(runs[0].Inputs[plan.InWorkItem]), &wi); err != nil {
		t.Fatal(err)
	}
	scope := runs[0].Inputs[plan.InSerializationKey]
	if scope != "agent:acme/platform:github:work_item:1" || !strings.HasPrefix(wi.IdempotencyKey, scope+"@v1:") ||
		wi.Attribution == nil || wi.Attribution.Policy.ScheduledDiscovery != "allow" || !strings.HasPrefix(wi.Attribution.Invoker, "github-poll:") {
		t.Fatalf("scope %s, work item %+v", scope, wi)
	}
	w.clk.Advance(time.Minute)
	w.poll(t)
	if got := len(w.gh.Runs()); got != 1 {
		t.Fatalf("a second run while the first is queued: %d", got)
	}
	w.complete(t, runs[0], githubsim.ConclusionFailure)
	w.clk.Advance(5 * time.Second)
	logs = w.poll(t)
	if got := len(w.gh.Runs()); got != 2 || w.gh.Runs()[1].Status == githubsim.StatusCompleted {
		t.Fatalf("no retry after the backoff, or it was settled away: %d runs\n%s", got, logs)
	}
	w.complete(t, w.gh.Runs()[1], githubsim.ConclusionCancelled)
	w.clk.Advance(10 * time.Second)
	logs = w.poll(t)
	if got := len(w.gh.Runs()); got != 2 || !strings.Contains(logs, "entity version quarantined") {
		t.Fatalf("retried past max (%d runs) or not given up on\n%s", got, logs)
	}
	w.clk.Advance(time.Minute)
	if logs = w.poll(t); strings.Contains(logs, "entity version quarantined") || len(w.gh.Runs()) != 2 {
		t.Fatalf("given up again or run again (%d runs)\n%s", len(w.gh.Runs()), logs)
	}
	// A person's comment: a new version.
	if _, _, err := w.gh.AddComment("acme/platform", n, "alice", "still broken"); err != nil {
		t.Fatal(err)
	}
	w.clk.Advance(time.Minute)
	w.poll(t)
	runs = w.gh.Runs()
	if len(runs) != 3 {
		t.Fatalf("a person's comment did not make it due again: %d runs", len(runs))
	}
	// Success, then the tool's own comment: no further run.
	if _, _, err := w.gh.AddComment("acme/platform", n, "github-actions[bot]", "fixed in #2"); err != nil {
		t.Fatal(err)
	}
	w.complete(t, runs[2], githubsim.ConclusionSuccess)
	w.clk.Advance(time.Minute)
	logs = w.poll(t)
	w.clk.Advance(time.Minute)
	w.poll(t)
	if got := len(w.gh.Runs()); got != 3 {
		t.Fatalf("run again after its success and the tool's own comment: %d runs\n%s", got, logs)
	}
}

// Without the policy, no scheduled run at all.
func TestGitHubScheduledDiscoveryDenied(t *testing.T) {
	w := newGHWorld(t, "")
	w.labelledIssue(t)
	w.poll(t)
	w.clk.Advance(time.Minute)
	if logs := w.poll(t); len(w.gh.Runs()) != 0 {
		t.Fatalf("%d runs without the policy\n%s", len(w.gh.Runs()), logs)
	}
}
