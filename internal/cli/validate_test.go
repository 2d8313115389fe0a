package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runValidate runs `fullsend validate` with a config dir and environment.
func runValidate(t *testing.T, dir string, env map[string]string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }}
	code := Run(context.Background(), app, []string{"validate", "--config-dir", dir})
	return code, out.String(), errb.String()
}

func TestValidateExamples(t *testing.T) {
	t.Chdir(filepath.Join("..", "..", "examples")) // agents start from here, as in the README
	code, out, errs := runValidate(t, ".fullsend", nil)
	if code != ExitOK || out != "ok: 3 agents, 3 triggers compiled\n" || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// The entity-source examples of docs/triggers.md validate; the re-review
// harness reacts to pushes only, and says so.
func TestValidateEntityExamples(t *testing.T) {
	t.Chdir(filepath.Join("..", "..", "examples"))
	code, out, errs := runValidate(t, filepath.Join("entities", ".fullsend"), nil)
	if code != ExitOK || out != "ok: 3 agents, 3 triggers compiled, 1 warning\n" ||
		!strings.HasPrefix(errs, filepath.Join("entities", ".fullsend", "harness", "rereview.yaml")+":10:3: WARNING: trigger: never matches when event is null") ||
		strings.Count(errs, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestValidateBroken(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nagents:\n  - {name: a, source: a.yaml}\n  - {name: off, source: off.yaml, enabled: false}\n  - {name: m, source: manual.yaml}\n  - {name: x, source: ../x.yaml}\nlimits: {runs_per_scope_per_hour: 0}\n",
		"a.yaml":      "role: r\ntrigger: |\n  event.transition.kind == \"comment_added\" &&\n  event.transition.comment.comand == \"/x\"\n",
		"off.yaml":    "role: r\ntrigger: 'event.repo'\nsurprise: 1\n",
		"manual.yaml": "role: r\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runValidate(t, dir, nil)
	if code != ExitUsage || out != "" {
		t.Fatalf("exit %d, stdout %q; want 2 and nothing on stdout", code, out)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	want := []string{
		p("config.yaml") + `:7:23: agents[3].source: "../x.yaml": a ".." component is not allowed`,
		p("config.yaml") + ":8:35: limits.runs_per_scope_per_hour: must be at least 1, got 0",
		p("a.yaml") + ":4:28: trigger: event.transition.comment has no field 'comand'; did you mean 'command'?",
		`  | event.transition.comment.comand == "/x"`,
		`  |                          ^`,
		p("off.yaml") + ":2:11: trigger: a trigger must be a condition (true or false), but this expression has type string; compare it with something, for example with ==",
		p("off.yaml") + `:3:1: harness: unknown key "surprise" (allowed: dispatch, entity, name, overlays, report, role, run, steer, trigger)`,
		"fullsend: validate: 5 problems in " + dir,
	}
	if got := strings.TrimRight(errs, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestValidateMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	code, _, errs := runValidate(t, dir, nil)
	if code != ExitUsage || !strings.Contains(errs, "file not found (looked for "+filepath.Join(dir, "config.yaml")+")") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestValidateRejectsArgs(t *testing.T) {
	var out, errb bytes.Buffer
	app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	if code := Run(context.Background(), app, []string{"validate", "extra"}); code != ExitUsage {
		t.Errorf("exit %d, want 2", code)
	}
}

// A missing configuration says how to point at one.
func TestMissingConfigSaysConfigDir(t *testing.T) {
	for _, cmd := range []string{"validate", "poll", "status"} {
		code, _, errs := runCLI(t, "", nil, "--config-dir", filepath.Join(t.TempDir(), ".fullsend"), cmd)
		if code != ExitUsage || !strings.Contains(errs, "file not found") || !strings.Contains(errs, "pass --config-dir DIR") {
			t.Errorf("%s: exit %d, stderr %s", cmd, code, errs)
		}
	}
}
