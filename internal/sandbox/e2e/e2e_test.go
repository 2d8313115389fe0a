//go:build linux

package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/workflows/ghactions"
	"github.com/fullsend-dev/fullsend/internal/workflows/gitlabci"
	"github.com/fullsend-dev/fullsend/internal/workflows/release"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// The step's secrets. The hostile agent looks for "SECRET".
const (
	jiraToken   = "jira-SECRET-e2e-4f1c"
	githubToken = "ghs_SECRETe2e7d2a"
	gitlabToken = "glpat-SECRET-e2e-91b0"
	jobToken    = "glcbt-SECRET-e2e-job"
	netrcToken  = "netrc-SECRET-e2e-77aa" // in the CI user's ~/.netrc (0600)
	lockID      = "0b6f3c1e-7d4a-4e38-9c2b-5a1d2e3f4a5b"
)

// ciUser is the unprivileged CI user the test creates: like a
// GitHub-hosted runner's `runner`, it has passwordless sudo.
const ciUser = "fse2erunner"

// stepRun is one execution of a generated agent step.
type stepRun struct {
	script  string            // the step's shell script
	env     map[string]string // the step's environment
	asUser  bool              // run the shell as ciUser instead of root
	noIsol  bool              // the harness sets run.isolation: none
	ciRunID string            // the lock's run entry id (GITHUB_RUN_ID or CI_PIPELINE_ID)
	driver  string
	signal  string // what the agent sends its parent; "" = QUIT
}

// stepResult is what the test observes after the step.
type stepResult struct {
	err      error
	output   string // fullsend's and the agent's output
	found    string // the agent's found.txt
	wrote    string // the agent's agent-wrote.txt
	lockLeft bool
	checkout string
	owner    [2]uint32 // the checkout's owner before the run
}

func TestGeneratedAgentStepKeepsTokensFromAHostileAgent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the isolation end-to-end test needs root (it creates a user and installs sudo); CI runs it as root")
	}
	setupCIUser(t)
	gh := githubStep(t)
	gl := gitlabJob(t)
	for _, tc := range []struct {
		name string
		run  stepRun
	}{
		{"github step as root", gh},
		{"github step as a user with passwordless sudo", with(gh, func(r *stepRun) { r.asUser = true })},
		{"gitlab job as root", gl},
		{"gitlab job as a user with passwordless sudo", with(gl, func(r *stepRun) { r.asUser = true })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := execStep(t, tc.run)
			t.Logf("output:\n%s\nfound.txt:\n%s", res.output, res.found)
			if res.err != nil {
				t.Fatalf("step failed: %v\n%s\nfound.txt:\n%s", res.err, res.output, res.found)
			}
			for _, secret := range []string{jiraToken, githubToken, gitlabToken, jobToken, netrcToken} {
				if strings.Contains(res.found, secret) || strings.Contains(res.output, secret) {
					t.Errorf("the agent reached %s:\n%s", secret, res.found)
				}
			}
			for _, want := range []string{"identity: uid=65534 gid=65534 groups=65534 ", "NoNewPrivs:\t1", "CapEff:\t0000000000000000",
				"mem: denied", `"no new privileges" flag is set`, "sudo rc=1", "Operation not permitted", "kill rc=1"} {
				if !strings.Contains(res.found, want) {
					t.Errorf("found.txt lacks %q:\n%s", want, res.found)
				}
			}
			if res.lockLeft {
				t.Error("the poll lock was left behind")
			}
			if res.wrote != "written\n" || !strings.Contains(res.output, "hostile agent done") {
				t.Errorf("the agent did not complete its job: wrote %q\n%s", res.wrote, res.output)
			}
			for _, p := range []string{res.checkout, filepath.Join(res.checkout, "agent-wrote.txt"), filepath.Join(res.checkout, "found.txt")} {
				if got := ownerOf(t, p); got != res.owner {
					t.Errorf("%s owned by %v after the run, want %v", p, got, res.owner)
				}
			}
		})
	}
	// Two runs in one checkout (the local executor's way), the first
	// linking files from outside into it while the second is handed it.
	t.Run("two runs in one checkout: github step as root", func(t *testing.T) { raceRuns(t, gh) })
	t.Run("two runs in one checkout: github step as a user with passwordless sudo", func(t *testing.T) {
		raceRuns(t, with(gh, func(r *stepRun) { r.asUser = true }))
	})
	// The step as it was generated before (`run: fullsend run`), as the
	// CI user: the agent runs as that user and reads the tokens in the
	// environment of the step's shell, which waits for fullsend.
	t.Run("control: the shell left behind by an unexeced fullsend run", func(t *testing.T) {
		res := execStep(t, with(gh, func(r *stepRun) { r.asUser, r.script = true, "fullsend run\n" }))
		if res.err != nil {
			t.Fatalf("step failed: %v\n%s", res.err, res.output)
		}
		if !strings.Contains(res.found, jiraToken) || !strings.Contains(res.found, githubToken) || !strings.Contains(res.found, netrcToken) {
			t.Errorf("the agent did not find the tokens in the shell's environment and the CI user's files:\n%s", res.found)
		}
		if !strings.Contains(res.output, "the agent runs as fullsend's own user") {
			t.Errorf("no warning that the agent is not isolated:\n%s", res.output)
		}
	})
	// The control: the same agent without isolation, as root, reaches the
	// tokens (so the hunt above can fail), and its signal to fullsend
	// still leaves the lock released.
	for _, sig := range []string{"QUIT", "HUP"} { // SIGTERM: internal/cli's run tests
		t.Run("control: run.isolation none as root, SIG"+sig, func(t *testing.T) {
			res := execStep(t, with(gh, func(r *stepRun) { r.noIsol, r.signal = true, sig }))
			if !strings.Contains(res.found, jiraToken) || !strings.Contains(res.found, githubToken) {
				t.Errorf("the unisolated agent found no token; the hunt is broken:\n%s", res.found)
			}
			if !strings.Contains(res.found, "identity: uid=0") || strings.Contains(res.found, "kill rc=1") {
				t.Errorf("the control agent did not run as root or could not signal fullsend:\n%s", res.found)
			}
			if !strings.Contains(res.output, "forwarding signal to agent") {
				t.Errorf("fullsend did not catch SIG%s:\n%s", sig, res.output)
			}
			if res.lockLeft {
				t.Errorf("SIG%s to fullsend left the poll lock behind:\n%s", sig, res.output)
			}
		})
	}
}

func with(r stepRun, f func(*stepRun)) stepRun {
	env := map[string]string{}
	for k, v := range r.env {
		env[k] = v
	}
	r.env = env
	f(&r)
	return r
}

var inputRef = regexp.MustCompile(`inputs\.([a-z_]+)`)

// githubStep is the generated "Run the agent" step of fullsend-run.yml
// with the environment GitHub gives it: the job's env from the dispatch
// inputs, the step's env with the secrets.
func githubStep(t *testing.T) stepRun {
	t.Helper()
	files, err := ghactions.Generate(ghactions.Options{Install: release.Pin{Mode: release.Download, Version: "v1.0.0", BaseURL: "https://example.com/r"},
		Secrets: []string{"JIRA_BASE_URL", "JIRA_USER_EMAIL", "JIRA_TOKEN"}}) // a jira-poll configuration's secrets
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Env   map[string]string `yaml:"env"`
			Steps []struct {
				Name string            `yaml:"name"`
				Env  map[string]string `yaml:"env"`
				Run  string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(files[ghactions.RunFile], &wf); err != nil {
		t.Fatal(err)
	}
	job := wf.Jobs["run"]
	inputs := map[string]string{plan.InAgent: "hostile", plan.InNormalizedEvent: string(event(t)),
		plan.InPollLock: fmt.Sprintf(`{"id":%q,"driver":"jira-poll","property":"%%ISSUE%%/%%PROP%%"}`, lockID)}
	r := stepRun{env: map[string]string{"GITHUB_RUN_ID": "42", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/platform"},
		ciRunID: "42", driver: "gha-dispatch"}
	for k, v := range job.Env {
		if m := inputRef.FindStringSubmatch(v); m != nil {
			r.env[k] = inputs[m[1]]
		}
	}
	secrets := map[string]string{"JIRA_BASE_URL": "%JIRA%", "JIRA_USER_EMAIL": "", "JIRA_TOKEN": jiraToken, "GITHUB_TOKEN": githubToken}
	for _, s := range job.Steps {
		if s.Name != "Run the agent" {
			continue
		}
		r.script = s.Run
		for k := range s.Env {
			r.env[k] = secrets[k]
		}
	}
	if r.script == "" || r.env["JIRA_TOKEN"] != jiraToken {
		t.Fatalf("no Run the agent step with the secrets in %s", files[ghactions.RunFile])
	}
	return r
}

// gitlabJob is the script of the generated fullsend-agent job with the
// variables GitLab gives it: the pipeline's FULLSEND_* variables, the
// project's masked variables and CI_JOB_TOKEN.
func gitlabJob(t *testing.T) stepRun {
	t.Helper()
	files, err := gitlabci.Generate(gitlabci.Options{Install: release.Pin{Mode: release.Download, Version: "v1.0.0", BaseURL: "https://example.com/r"},
		Image: "alpine@sha256:" + strings.Repeat("0", 64)})
	if err != nil {
		t.Fatal(err)
	}
	var ci struct {
		Agent struct {
			Script []string `yaml:"script"`
		} `yaml:"fullsend-agent"`
	}
	if err := yaml.Unmarshal(files[gitlabci.FileName], &ci); err != nil {
		t.Fatal(err)
	}
	script := strings.Join(ci.Agent.Script, "\n")
	if !strings.Contains(script, "fullsend run") {
		t.Fatalf("no fullsend run in the agent job: %q", script)
	}
	return stepRun{script: script, ciRunID: "43", driver: "gitlab-pipeline", env: map[string]string{
		"FULLSEND_AGENT": "hostile", "FULLSEND_EVENT": base64.StdEncoding.EncodeToString(event(t)),
		"FULLSEND_POLL_LOCK_ID": lockID, "FULLSEND_POLL_LOCK_DRIVER": "jira-poll", "FULLSEND_POLL_LOCK_PROPERTY": "%ISSUE%/%PROP%",
		"CI_PIPELINE_ID": "43", "CI_PIPELINE_URL": "https://gitlab.example/acme/platform/-/pipelines/43",
		"JIRA_BASE_URL": "%JIRA%", "JIRA_TOKEN": jiraToken, "GITLAB_TOKEN": gitlabToken, "CI_JOB_TOKEN": jobToken,
	}}
}

func event(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "events", "triage-comment.json"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b)
}

func ownerOf(t *testing.T, path string) [2]uint32 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return [2]uint32{st.Uid, st.Gid}
}

// execStep runs r's script as GitHub runs a step (bash --noprofile
// --norc -eo pipefail FILE) in a fresh checkout holding the config and
// the hostile agent, against a Jira emulator holding the poll lock.
func execStep(t *testing.T, r stepRun) stepResult {
	t.Helper()
	sim := jirasim.New(jirasim.Options{RequiredToken: jiraToken})
	base, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	root := t.TempDir()
	if r.asUser {
		root = userDir(t)
	}
	checkout := filepath.Join(root, "work", "platform")
	if r.signal == "" {
		r.signal = "QUIT"
	}
	writeCheckout(t, checkout, base, r.noIsol, r.signal)
	if r.asUser {
		chownUser(t, root)
	}
	issue, prop := lockedIssue(sim, r)
	res := stepResult{checkout: checkout, owner: ownerOf(t, checkout)}
	cmd := stepCmd(t, r, checkout, base, issue, prop)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	res.err = cmd.Run()
	res.output = out.String()
	found, _ := os.ReadFile(filepath.Join(checkout, "found.txt"))
	wrote, _ := os.ReadFile(filepath.Join(checkout, "agent-wrote.txt"))
	res.found, res.wrote = string(found), string(wrote)
	_, res.lockLeft = sim.Property(issue, prop)
	if r.noIsol && res.err != nil {
		res.err = nil // the control's agent dies of its own SIGQUIT; only the lock matters
	}
	return res
}

// lockedIssue adds an issue to sim holding the dispatched poll lock of
// r's run; it returns the issue and the lock's property.
func lockedIssue(sim *jirasim.Server, r stepRun) (issue, prop string) {
	issue = sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "isolation"})
	prop, _ = polllock.Keys("acme/platform")
	sim.SetPropertyDirect(issue, prop, polllock.Lock{ID: lockID, TS: time.Now(), Phase: polllock.PhaseDispatched,
		Runs: []plan.Ref{{Driver: r.driver, ID: r.ciRunID}}}.Marshal())
	return issue, prop
}

// stepCmd is the command running r's script in checkout, its lock on
// issue (property prop) at the Jira emulator jira.
func stepCmd(t *testing.T, r stepRun, checkout, jira, issue, prop string) *exec.Cmd {
	t.Helper()
	scriptFile := filepath.Join(checkout, "..", "..", "_temp", "step-"+issue+".sh")
	writeFile(t, scriptFile, r.script, 0o644)
	env := []string{"PATH=" + binDir + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + filepath.Dir(filepath.Dir(checkout)), "LANG=C.UTF-8"}
	for k, v := range r.env {
		v = strings.NewReplacer("%JIRA%", jira, "%ISSUE%", issue, "%PROP%", prop).Replace(v)
		env = append(env, k+"="+v)
	}
	argv := []string{"bash", "--noprofile", "--norc", "-eo", "pipefail", scriptFile}
	if r.asUser {
		argv = append([]string{"setpriv", "--reuid=" + ciUser, "--regid=" + ciUser, "--init-groups", "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = checkout, env
	return cmd
}

// writeCheckout writes the repository the agent works in.
func writeCheckout(t *testing.T, dir, jiraBase string, noIsol bool, signal string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, ".fullsend", "config.yaml"), fmt.Sprintf(`version: 1
repo: acme/platform
agents:
  - name: hostile
    source: hostile.yaml
poll:
  input_drivers:
    - type: jira-poll
      connection:
        base_url: %s
        token_env: JIRA_TOKEN
      queries: ["project = PROJ"]
`, jiraBase), 0o644)
	harness := "role: triage\nrun:\n  command: [\"./hostile.sh\"]\n  timeout: 30s\n"
	if noIsol {
		harness += "  isolation: none\n"
	}
	writeFile(t, filepath.Join(dir, ".fullsend", "hostile.yaml"), harness, 0o644)
	writeFile(t, filepath.Join(dir, "hostile.sh"), strings.ReplaceAll(hostileAgent, "%SIGNAL%", signal), 0o755)
	writeFile(t, filepath.Join(dir, "README.md"), "the repository\n", 0o644)
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}
