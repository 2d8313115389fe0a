package demo

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// The demo's cast: accounts in the emulated Jira.
const (
	admin    = "acct-ada-admin"
	dev      = "acct-dev-dana"
	outsider = "acct-oscar-outsider"
	bot      = "acct-fullsend-bot"

	repo        = "acme/platform"
	project     = "DEMO"
	jiraToken   = "demo-jira-token"
	gitHubToken = "ghs_demoToken"
)

// world is the emulated Jira and GitHub plus a temporary config directory.
type world struct {
	jira    *jirasim.Server
	gh      *githubsim.Server
	gl      *gitlabWorld
	jiraURL string
	ghURL   string
	dir     string // temporary .fullsend
	issues  []string
	env     map[string]string
}

func newWorld() (*world, error) {
	w := &world{}
	w.jira = jirasim.New(jirasim.Options{RequiredToken: jiraToken})
	var err error
	if w.jiraURL, err = w.jira.Start(); err != nil {
		return nil, fmt.Errorf("start Jira emulator: %w", err)
	}
	w.gh = githubsim.New(githubsim.Options{Token: gitHubToken, Repos: []githubsim.Repo{{
		FullName: repo, DefaultBranch: "main",
		Workflows: []githubsim.Workflow{{File: "fullsend-run.yml", Inputs: plan.Names, Required: plan.Always}},
	}}})
	if w.ghURL, err = w.gh.Start(); err != nil {
		w.jira.Close()
		return nil, fmt.Errorf("start GitHub emulator: %w", err)
	}
	w.jira.AddProject(project, "Demo platform")
	for _, u := range []jira.User{
		{AccountID: admin, AccountType: "atlassian", DisplayName: "Ada (admin)"},
		{AccountID: dev, AccountType: "atlassian", DisplayName: "Dana (developer)"},
		{AccountID: outsider, AccountType: "atlassian", DisplayName: "Oscar (outsider)"},
		{AccountID: bot, AccountType: "app", DisplayName: "fullsend bot"},
	} {
		w.jira.AddUser(u)
	}
	w.jira.SetRole(project, "Administrators", admin)
	w.jira.SetRole(project, "Developers", dev)
	w.jira.SetMyself(bot)
	for _, s := range []string{"Importer drops rows with unicode names", "Flaky login test", "Dashboard is slow", "Export to CSV"} {
		w.issues = append(w.issues, w.jira.AddIssue(jirasim.IssueSpec{Project: project, Summary: s, Reporter: admin}))
	}
	w.env = map[string]string{
		"JIRA_TOKEN":     jiraToken,
		"GITHUB_TOKEN":   gitHubToken,
		"GITHUB_API_URL": w.ghURL,
		"PATH":           os.Getenv("PATH"),
		"HOME":           os.Getenv("HOME"),
		"TMPDIR":         os.Getenv("TMPDIR"),
	}
	if w.dir, err = os.MkdirTemp("", "fullsend-demo-"); err != nil {
		w.close()
		return nil, err
	}
	if err := w.writeConfig(); err != nil {
		w.close()
		return nil, err
	}
	if w.gl, err = newGitLabWorld(w.dir); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *world) close() {
	if w.gl != nil {
		w.gl.close()
	}
	w.gh.Close()
	w.jira.Close()
	if w.dir != "" {
		os.RemoveAll(w.dir)
	}
}

func (w *world) writeConfig() error {
	files := map[string]string{
		"config.yaml": fmt.Sprintf(`version: 1
repo: %s
forge: github
agents:
  - name: triage
    source: harness/triage.yaml
  - name: label-triage
    source: harness/label-triage.yaml
  - name: reconcile
    source: harness/reconcile.yaml
authorization:
  min_role: write
  scheduled_discovery: allow
limits:
  runs_per_scope_per_hour: 6
poll:
  input_drivers:
    - type: jira-poll
      connection:
        base_url: %s
        token_env: JIRA_TOKEN
      project: %s
      queries:
        - project = %s AND statusCategory != Done
      lock:
        m: 50
        n: 5
        stale_threshold: 60s
        refresh_interval: 20s
        jitter_min: 40ms
        jitter_max: 120ms
      concurrency: 4
  output_driver: gha-dispatch
outputs:
  gha-dispatch:
    workflow: fullsend-run.yml
    ref: main
  local:
    max_parallel: 2
    grace: 10s
`, repo, w.jiraURL, project, project),
		"harness/triage.yaml": echoHarness("triage", `  event.transition.kind == "comment_added" &&
  event.transition.comment.command == "/fs-triage"
`, "triage agent: working on $FULLSEND_WORK_ITEM_KEY ($FULLSEND_SERIALIZATION_KEY)"),
		"harness/reconcile.yaml": fmt.Sprintf(`role: code
entity:
  sources: [jira]
  retry: {max: 2, backoff: 1s}
trigger: 'event == null && "needs-agent" in entity.state.labels'
run:
  # the first attempt fails, the next succeeds
  command:
    - sh
    - -c
    - |
      if [ -e '%[1]s' ]; then echo "reconcile agent: done on $FULLSEND_WORK_ITEM_KEY"; else touch '%[1]s'; echo "reconcile agent: first attempt fails"; exit 1; fi
`, filepath.Join(w.dir, "reconcile-failed-once")) + agentLimits,
		"harness/label-triage.yaml": echoHarness("triage", `  event.transition.kind == "label_changed" &&
  event.transition.label.action == "added" &&
  event.transition.label.name == "needs-triage"
`, "label agent: $FULLSEND_WORK_ITEM_KEY"),
	}
	return writeFiles(w.dir, files)
}

// agentLimits ends the run of every demo harness: a minute, no isolation.
const agentLimits = `  timeout: 1m
  isolation: none # the demo's agents only echo; isolating them would hand the working directory over
`

// echoHarness is a demo harness file of role whose trigger is the
// indented lines of trigger and whose agent only echoes says.
func echoHarness(role, trigger, says string) string {
	return "role: " + role + "\ntrigger: >-\n" + trigger + `run:
  command: ["sh", "-c", "echo \"` + says + `\""]
` + agentLimits
}

// writeFiles writes name → content below dir, creating folders.
func writeFiles(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			return err
		}
	}
	return nil
}
