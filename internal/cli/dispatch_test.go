package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// runCLI runs fullsend with args from dir's parent-relative config dir.
func runCLI(t *testing.T, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	// Safe for concurrent writes: the local executor's children write to
	// stderr while the command logs there.
	var out, errb syncio.Buffer
	app := &App{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }}
	code := Run(context.Background(), app, args)
	return code, out.String(), errb.String()
}

func TestDispatchOnExamples(t *testing.T) {
	cfgDir := filepath.Join("..", "..", "examples", ".fullsend")
	ev := func(name string) string { return filepath.Join("..", "..", "examples", "events", name) }
	cases := []struct {
		name    string
		args    []string
		stdin   string
		code    int
		agents  []string
		errHas  string
		matrix  bool
		rawWant string
	}{
		{name: "triage comment", args: []string{"--input-file", ev("triage-comment.json")}, agents: []string{"triage"}},
		{name: "triage comment via stdin", args: []string{"--input-file", "-"}, stdin: validEventJSON, agents: []string{"triage"}},
		{name: "label added", args: []string{"--input-file", ev("label-added.json")}, agents: []string{"label"}},
		{name: "outsider denied", args: []string{"--input-file", ev("outsider-comment.json")}, rawWant: "[]\n"},
		{name: "matrix", args: []string{"--input-file", ev("triage-comment.json"), "--output-driver", "gha-matrix"}, agents: []string{"triage"}, matrix: true},
		{name: "invalid event", args: []string{"--input-file", "-"}, stdin: `{"repo":"acme/../x"}`, code: 2, errHas: "/repo"},
		{name: "huge stdin", args: []string{"--input-file", "-"}, stdin: `{"repo":"` + strings.Repeat("a", 10<<20) + `"}`, code: 2, errHas: "larger than"},
		{name: "missing file", args: []string{"--input-file", "nope.json"}, code: 2, errHas: "nope.json"},
		{name: "unknown output", args: []string{"--input-file", ev("triage-comment.json"), "--output-driver", "carrier-pigeon"}, code: 2, errHas: "carrier-pigeon"},
		{name: "unknown input", args: []string{"--input-driver", "xml"}, code: 2, errHas: "xml"},
		{name: "unknown flag", args: []string{"--frobnicate"}, code: 2, errHas: "frobnicate"},
		{name: "event name with json input", args: []string{"--input-file", ev("triage-comment.json"), "--event-name", "issues"}, code: 2, errHas: "--event-name is for --input-driver gha-event"},
		{name: "bad --repo", args: []string{"--input-file", ev("triage-comment.json"), "--repo", "acme/../x"}, code: 2, errHas: "--repo: repo \"acme/../x\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"dispatch", "--config-dir", cfgDir, "--log-format", "json"}, c.args...)
			code, out, errs := runCLI(t, c.stdin, nil, args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.code, errs)
			}
			if c.errHas != "" && !strings.Contains(errs, c.errHas) {
				t.Fatalf("stderr lacks %q: %s", c.errHas, errs)
			}
			if c.code != 0 {
				if out != "" {
					t.Fatalf("stdout on failure: %q", out)
				}
				return
			}
			if c.rawWant != "" && out != c.rawWant {
				t.Fatalf("stdout = %q, want %q", out, c.rawWant)
			}
			var entries []map[string]string
			doc := []byte(out)
			if c.matrix {
				var m struct{ Include []map[string]string }
				if err := json.Unmarshal(doc, &m); err != nil {
					t.Fatal(err)
				}
				entries = m.Include
			} else if err := json.Unmarshal(doc, &entries); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e["agent"])
				if len(e) != 9 {
					t.Errorf("entry has %d fields", len(e))
				}
			}
			if strings.Join(got, ",") != strings.Join(c.agents, ",") {
				t.Fatalf("agents = %v, want %v", got, c.agents)
			}
		})
	}
}

func TestDispatchBadConfigIsExit2(t *testing.T) {
	code, _, errs := runCLI(t, validEventJSON, nil, "dispatch", "--config-dir", t.TempDir())
	if code != 2 || !strings.Contains(errs, "config.yaml") {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
}

func TestDispatchGHAEventToGHADispatch(t *testing.T) {
	gh := githubsim.New(githubsim.Options{Token: "ghs_cliTestToken", Repos: []githubsim.Repo{{
		FullName: "acme/platform", DefaultBranch: "main",
		Workflows: []githubsim.Workflow{{File: "fullsend-run.yml", Inputs: plan.Names, Required: plan.Always}},
	}}})
	base, err := gh.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer gh.Close()
	if err := gh.SetPermission("acme/platform", "alice", "write"); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_TOKEN": "ghs_cliTestToken", "GITHUB_API_URL": base,
		"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": filepath.Join("..", "input", "ghaevent", "testdata", "issue_comment.created.json")}
	code, out, errs := runCLI(t, "", env, "dispatch", "--config-dir", filepath.Join("..", "..", "examples", ".fullsend"),
		"--log-format", "json", "--output-driver", "gha-dispatch")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out+errs, "ghs_cliTestToken") {
		t.Fatal("token printed")
	}
	runs := gh.Runs()
	if len(runs) != 1 || runs[0].Inputs["agent"] != "triage" || runs[0].Inputs["serialization_key"] != "triage:acme/platform:github:work_item:41" {
		t.Fatalf("runs = %+v\n%s", runs, errs)
	}
}

func TestDispatchInvalidEventNamesTheInputOnEveryLine(t *testing.T) {
	cfgDir := filepath.Join("..", "..", "examples", ".fullsend")
	code, out, errs := runCLI(t, `{"repo":"acme/../x","extra":1}`, nil, "dispatch", "--config-dir", cfgDir, "--log-format", "json")
	if code != 2 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if len(lines) < 3 {
		t.Fatalf("want one line per problem, got:\n%s", errs)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "stdin: /") {
			t.Errorf("problem line %q does not name the input", l)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "fullsend: stdin: invalid NormalizedEvent (") {
		t.Errorf("summary = %q", last)
	}
}

func TestDispatchGHADispatchWithoutTokenSaysSoOnce(t *testing.T) {
	cfgDir := filepath.Join("..", "..", "examples", ".fullsend")
	code, out, errs := runCLI(t, validEventJSON, nil, "dispatch", "--config-dir", cfgDir, "--log-format", "json", "--output-driver", "gha-dispatch")
	if code != 2 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if want := "fullsend: gha-dispatch: no GitHub token"; !strings.HasPrefix(errs, want) {
		t.Fatalf("stderr = %q, want it to start with %q", errs, want)
	}
}
