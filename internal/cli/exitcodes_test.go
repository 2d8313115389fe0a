package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// exitCase is one row of the exit-code table of docs/cli.md.
type exitCase struct {
	command string // top-level command
	name    string
	code    int
	errHas  string
	// run returns stdin, the environment and the arguments.
	run func(t *testing.T) (string, map[string]string, []string)
}

// fixed returns a run func for a fixed command line.
func fixed(stdin string, env map[string]string, args ...string) func(*testing.T) (string, map[string]string, []string) {
	return func(*testing.T) (string, map[string]string, []string) { return stdin, env, args }
}

// githubFor starts a GitHub emulator holding acme/platform (with the
// fullsend workflow unless noWorkflow), accepting token, and returns the
// environment that points dispatch at it with the token given.
func githubFor(t *testing.T, token, given string, noWorkflow bool) map[string]string {
	t.Helper()
	repo := githubsim.Repo{FullName: "acme/platform", DefaultBranch: "main"}
	if !noWorkflow {
		repo.Workflows = []githubsim.Workflow{{File: "fullsend-run.yml", Inputs: plan.Names, Required: plan.Always}}
	}
	gh := githubsim.New(githubsim.Options{Token: token, Repos: []githubsim.Repo{repo}})
	base, err := gh.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gh.Close)
	return map[string]string{"GITHUB_TOKEN": given, "GITHUB_API_URL": base}
}

// TestExitCodes checks the exit-code table of docs/cli.md command by
// command: 0 success, 1 a runtime failure, 2 the operator's input,
// configuration or refused credentials (for every forge alike). 3 (run:
// lost lock) is in run_test.go, 130/143 in stdin_test.go and
// cmd/fullsend.
func TestExitCodes(t *testing.T) {
	examples := filepath.Join("..", "..", "examples", ".fullsend")
	ev := filepath.Join("..", "..", "examples", "events", "triage-comment.json")
	dispatchTo := func(env func(t *testing.T) map[string]string) func(*testing.T) (string, map[string]string, []string) {
		return func(t *testing.T) (string, map[string]string, []string) {
			return "", env(t), []string{"dispatch", "--config-dir", examples, "--input-file", ev, "--output-driver", "gha-dispatch"}
		}
	}
	pollWith := func(token string, args ...string) func(*testing.T) (string, map[string]string, []string) {
		return func(t *testing.T) (string, map[string]string, []string) {
			f := newPollFixture(t)
			f.sim.AddComment(f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"}), "acct-dev", "/fs-triage")
			f.env["JIRA_TOKEN"] = token
			return "", f.env, append([]string{"--config-dir", f.dir, "poll"}, args...)
		}
	}
	cases := []exitCase{
		{"dispatch", "plan printed", 0, "", fixed("", nil, "dispatch", "--config-dir", examples, "--input-file", ev)},
		{"dispatch", "unknown flag", 2, "unknown flag", fixed("", nil, "dispatch", "--input", ev)},
		{"dispatch", "invalid event", 2, "invalid NormalizedEvent", fixed(`{"repo":1}`, nil, "dispatch", "--config-dir", examples)},
		{"dispatch", "GitHub refuses the token", 2, "GitHub rejected the token", dispatchTo(func(t *testing.T) map[string]string {
			return githubFor(t, "ghs_right", "ghs_wrong", false)
		})},
		{"dispatch", "workflow missing", 1, "1 of 1 dispatches failed", dispatchTo(func(t *testing.T) map[string]string {
			return githubFor(t, "ghs_right", "ghs_right", true)
		})},
		{"dispatch", "GitLab refuses the token", 2, "GitLab rejected the token", func(t *testing.T) (string, map[string]string, []string) {
			_, base := startGitLabSim(t)
			env := map[string]string{"GITLAB_API_URL": base + "/api/v4", "GITLAB_TOKEN": "wrong-token"}
			return "", env, []string{"dispatch", "--config-dir", examples, "--input-file", ev, "--output-driver", "gitlab-pipeline"}
		}},
		{"event", "valid", 0, "", fixed("", nil, "event", "validate", ev)},
		{"event", "invalid", 2, "invalid NormalizedEvent", fixed(`{}`, nil, "event", "validate", "-")},
		{"entity", "valid", 0, "", fixed("", nil, "entity", "validate", filepath.Join("..", "entity", "testdata", "github-change-proposal.json"))},
		{"entity", "invalid", 2, "invalid NormalizedEntity", fixed(`{}`, nil, "entity", "validate", "-")},
		{"poll", "cycle ok", 0, "", pollWith("s3cret-token")},
		{"poll", "Jira refuses the token", 2, "refused the credentials ($JIRA_USER_EMAIL/$JIRA_TOKEN)", pollWith("wrong")},
		{"poll", "Jira refuses a Bearer token", 2, "refused the credentials ($JIRA_TOKEN, sent as a Bearer token since $JIRA_USER_EMAIL is empty)", func(t *testing.T) (string, map[string]string, []string) {
			stdin, env, args := pollWith("wrong")(t)
			env["JIRA_USER_EMAIL"] = ""
			return stdin, env, args
		}},
		{"poll", "GitHub refuses the token while dispatching", 2, "GitHub rejected the token", func(t *testing.T) (string, map[string]string, []string) {
			stdin, env, args := pollWith("s3cret-token", "--output-driver", "gha-dispatch")(t)
			for k, v := range githubFor(t, "ghs_right", "ghs_wrong", false) {
				env[k] = v
			}
			return stdin, env, args
		}},
		{"poll", "Jira unreachable", 1, "connection refused", func(t *testing.T) (string, map[string]string, []string) {
			f := newPollFixture(t)
			f.pointAt(t, closedAddr(t))
			return "", f.env, []string{"--config-dir", f.dir, "poll"}
		}},
		{"poll", "bad flag value", 2, "--interval needs --watch", pollWith("s3cret-token", "--interval", "5s")},
		{"status", "snapshot", 0, "", func(t *testing.T) (string, map[string]string, []string) {
			_, env, args := pollWith("s3cret-token")(t)
			return "", env, append(args[:len(args)-1], "status")
		}},
		{"status", "Jira refuses the token", 2, "refused the credentials ($JIRA_USER_EMAIL/$JIRA_TOKEN", func(t *testing.T) (string, map[string]string, []string) {
			_, env, args := pollWith("wrong")(t)
			return "", env, append(args[:len(args)-1], "status")
		}},
		{"status", "Jira unreachable", 1, "connection refused", func(t *testing.T) (string, map[string]string, []string) {
			f := newPollFixture(t)
			f.pointAt(t, closedAddr(t))
			return "", f.env, []string{"--config-dir", f.dir, "status"}
		}},
		{"run", "no event", 2, "no event", fixed("", nil, "run", "--config-dir", examples, "--harness", "triage", "--poll-lock", "")},
		{"sim", "no system chosen", 2, "", fixed("", nil, "sim", "--nope")},
		{"steer", "not an item URL", 2, "want a GitHub issue", fixed("", nil, "steer", "https://example.com/x", "also")},
		{"steer", "no token", 2, "GITHUB_TOKEN", fixed("", nil, "steer", "https://github.com/acme/platform/issues/7", "also")},
		{"steer", "one argument", 2, "", fixed("", nil, "steer", "https://github.com/acme/platform/issues/7")},
		{"internal-tether", "nothing held", 0, "", fixed("", nil, "internal-tether")},
		{"internal-tether", "an argument", 2, "accepts no arguments", fixed("", nil, "internal-tether", "x")},
		{"internal-tether", "a bad group", 1, "bad group", fixed("hold 1\n", nil, "internal-tether")},
		{"validate", "examples", 0, "", fixed("", nil, "validate", "--config-dir", examples)},
		{"validate", "no config", 2, "config.yaml", fixed("", nil, "validate", "--config-dir", t.TempDir())},
		{"version", "text", 0, "", fixed("", nil, "version")},
		{"version", "bad format", 2, `--output "yaml"`, fixed("", nil, "version", "-o", "yaml")},
		{"workflows", "unknown platform", 2, "", fixed("", nil, "workflows", "generate", "--platform", "bitbucket", "--dir", t.TempDir())},
		{"demo", "unknown flag", 2, "unknown flag", fixed("", nil, "demo", "--nope")},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.command] = true
		t.Run(tc.command+" "+tc.name, func(t *testing.T) {
			stdin, env, args := tc.run(t)
			if env == nil {
				env = map[string]string{}
			}
			code, _, errs := runCLI(t, stdin, env, append([]string{"--log-format", "json"}, args...)...)
			if code != tc.code || !strings.Contains(errs, tc.errHas) {
				t.Fatalf("exit %d, want %d with %q; stderr:\n%s", code, tc.code, tc.errHas, errs)
			}
			if tc.code != 0 && !strings.Contains(errs, "fullsend: ") {
				t.Errorf("no error line on stderr: %s", errs)
			}
		})
	}
	for _, c := range commandList(&App{}) {
		if !seen[c.Name()] {
			t.Errorf("command %q has no row in the exit-code table test", c.Name())
		}
	}
}

// A GitHub error answer reads "METHOD URL: HTTP status: message", without
// the empty "[]" go-github appends.
func TestGitHubRefusalText(t *testing.T) {
	env := githubFor(t, "ghs_right", "ghs_wrong", false)
	examples := filepath.Join("..", "..", "examples", ".fullsend")
	ev := filepath.Join("..", "..", "examples", "events", "triage-comment.json")
	_, _, errs := runCLI(t, "", env, "--log-format", "json", "dispatch", "--config-dir", examples, "--input-file", ev, "--output-driver", "gha-dispatch")
	line := errs[strings.LastIndex(strings.TrimSpace(errs), "\n")+1:]
	if strings.Contains(line, "[]") || !strings.Contains(line, ": HTTP 401") {
		t.Errorf("error line %q", line)
	}
}
