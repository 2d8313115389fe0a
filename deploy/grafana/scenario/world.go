package scenario

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

const (
	repo     = "acme/platform"
	project  = "PROJ"
	dev      = "acct-dana"     // Developers: write
	outsider = "acct-oscar"    // no role: refused by the gate
	bot      = "acct-fullsend" // the tool's own account (loop guard)
	token    = "scenario-token"
)

// world is the two emulators and a configuration directory pointing at them.
type world struct {
	clk    *fakeclock.Clock
	jira   *jirasim.Server
	gh     *githubsim.Server
	dir    string
	env    map[string]string
	issues []string
	// poisoned is the issue that got the poison comment.
	poisoned string
}

// jiraPoints is the emulated Jira's rate budget per minute: enough for a
// quiet minute, not for a busy one, so the dashboard shows 429s.
const jiraPoints = 60

func newWorld(clk *fakeclock.Clock, issues int) (*world, error) {
	w := &world{clk: clk}
	w.jira = jirasim.New(jirasim.Options{Now: clk.Tick, RequiredToken: token,
		RateBudget: &jirasim.RateBudget{Points: jiraPoints, Window: minute}})
	jiraURL, err := w.jira.Start()
	if err != nil {
		return nil, err
	}
	w.gh = githubsim.New(githubsim.Options{Token: token, Now: clk.Now, Repos: []githubsim.Repo{{FullName: repo,
		Workflows: []githubsim.Workflow{{File: "fullsend-run.yml", Inputs: plan.Names, Required: plan.Always}}}}})
	ghURL, err := w.gh.Start()
	if err != nil {
		w.jira.Close()
		return nil, err
	}
	w.jira.AddProject(project, "Platform")
	w.jira.AddUser(jira.User{AccountID: dev, AccountType: "atlassian"})
	w.jira.AddUser(jira.User{AccountID: outsider, AccountType: "atlassian"})
	w.jira.AddUser(jira.User{AccountID: bot, AccountType: "app"})
	w.jira.AddUser(jira.User{AccountID: poison, AccountType: "atlassian"})
	w.jira.SetRole(project, "Developers", dev)
	w.jira.SetMyself(bot)
	for i := 0; i < issues; i++ {
		w.issues = append(w.issues, w.jira.AddIssue(jirasim.IssueSpec{Project: project, Summary: fmt.Sprintf("work %d", i), Reporter: dev}))
	}
	w.env = map[string]string{"JIRA_TOKEN": token, "GITHUB_TOKEN": token, "GITHUB_API_URL": ghURL}
	if w.dir, err = os.MkdirTemp("", "fullsend-scenario-"); err != nil {
		w.close()
		return nil, err
	}
	return w, w.writeConfig(jiraURL)
}

func (w *world) close() {
	w.gh.Close()
	w.jira.Close()
	if w.dir != "" {
		os.RemoveAll(w.dir)
	}
}

func (w *world) getenv(k string) string { return w.env[k] }

func (w *world) writeConfig(jiraURL string) error {
	files := map[string]string{
		"config.yaml": fmt.Sprintf(`version: 1
repo: %s
forge: github
agents:
  - name: triage
    source: harness/triage.yaml
  - name: plan
    source: harness/plan.yaml
authorization:
  min_role: write
limits:
  runs_per_scope_per_hour: 8
poll:
  input_drivers:
    - type: jira-poll
      connection:
        base_url: %s
        token_env: JIRA_TOKEN
        max_retries: 1
      project: %s
      queries:
        - project = %s AND statusCategory != Done
      lock:
        n: 5
        stale_threshold: 3m
        refresh_interval: 1m
  output_driver: gha-dispatch
outputs:
  gha-dispatch:
    workflow: fullsend-run.yml
    ref: main
`, repo, jiraURL, project, project),
		"harness/triage.yaml": harnessFile("/fs-triage"),
		"harness/plan.yaml":   harnessFile("/fs-plan"),
	}
	for name, body := range files {
		p := filepath.Join(w.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func harnessFile(command string) string {
	return `role: triage
trigger: >-
  event.transition.kind == "comment_added" &&
  event.transition.comment.command == "` + command + `"
run:
  command: ["./agent.sh"]
  timeout: 30m
`
}
