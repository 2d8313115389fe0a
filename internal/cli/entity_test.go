package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/testfs"
)

func TestEntityValidateCommand(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("..", "entity", "testdata", "jira-work-item.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", string(golden))
	bad := write("bad.json", strings.Replace(strings.Replace(string(golden), `"write"`, `"boss"`, 1), `"acme/platform"`, `"acme/../x"`, 1))
	big := write("big.json", `{"repo":"`+strings.Repeat("a", 3<<20)+`"}`)
	event := write("event.json", validEventJSON)

	tests := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		wantOut    string
		wantErrHas []string
	}{
		{"valid file", []string{"entity", "validate", good}, "", 0, good + ": valid\n", nil},
		{"valid stdin", []string{"entity", "validate", "-"}, string(golden), 0, "<stdin>: valid\n", nil},
		{"invalid file", []string{"entity", "validate", bad}, "", 2, "", []string{
			bad + `: /activity/0/actor/role: must be one of`,
			bad + `: /repo: must not contain a ".." segment`,
			"fullsend: " + bad + ": invalid NormalizedEntity (2 problems)",
		}},
		{"an event is not an entity", []string{"entity", "validate", event}, "", 2, "", []string{
			event + ": /transition: unknown field", event + ": /activity: required field is missing"}},
		{"invalid stdin", []string{"entity", "validate", "-"}, "{", 2, "", []string{"<stdin>: invalid JSON", "(1 problem)"}},
		{"too large", []string{"entity", "validate", big}, "", 2, "", []string{big + ": entity is larger than 2 MiB"}},
		{"missing file", []string{"entity", "validate", filepath.Join(dir, "nope.json")}, "", 2, "", []string{"entity file " + filepath.Join(dir, "nope.json") + ": no such file"}},
		{"directory", []string{"entity", "validate", dir}, "", 2, "", []string{"fullsend: entity file " + dir + ": is a directory\n"}},
		{"no argument", []string{"entity", "validate"}, "", 2, "", []string{"fullsend: entity validate: want one FILE, or - for standard input (got 0 arguments)\n"}},
		{"two arguments", []string{"entity", "validate", good, good}, "", 2, "", []string{"want one FILE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			app := &App{Stdin: strings.NewReader(tc.stdin), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
			code := Run(context.Background(), app, tc.args)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			if stdout.String() != tc.wantOut {
				t.Fatalf("stdout %q, want %q", stdout.String(), tc.wantOut)
			}
			for _, s := range tc.wantErrHas {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
		})
	}
}

func TestEntityValidateStdinHint(t *testing.T) {
	var stdout, stderr bytes.Buffer
	app := &App{Stdin: strings.NewReader("{"), Stdout: &stdout, Stderr: &stderr, StdinIsTerminal: true, Getenv: func(string) string { return "" }}
	Run(context.Background(), app, []string{"entity", "validate", "-"})
	if !strings.Contains(stderr.String(), "reading a NormalizedEntity from standard input; end with Ctrl-D, or give a FILE instead of -") {
		t.Fatalf("stderr:\n%s", stderr.String())
	}
}

func TestValidateEntityHarness(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml":    "version: 1\nrepo: acme/platform\nagents:\n  - name: a\n    source: harness/a.yaml\n",
		"harness/a.yaml": "role: r\nentity: {sources: [github]}\ntrigger: 'event != null && event.transition.kind == \"opened\"'\nrun: {command: [/bin/true]}\n",
	})
	code, out, errs := runCLI(t, "", nil, "validate", "--config-dir", dir)
	if code != 0 || out != "ok: 1 agent, 1 trigger compiled, 1 warning\n" ||
		!strings.Contains(errs, filepath.Join(dir, "harness", "a.yaml")+":3:11: WARNING: trigger: never matches when event is null") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	bad := testfs.WriteTree(t, map[string]string{
		"config.yaml":    "version: 1\nrepo: acme/platform\nagents:\n  - name: a\n    source: harness/a.yaml\n",
		"harness/a.yaml": "role: r\nentity: {sources: [github]}\ntrigger: 'event.transition.kind == \"opened\"'\nrun: {command: [/bin/true]}\n",
	})
	code, _, errs = runCLI(t, "", nil, "validate", "--config-dir", bad)
	if code != 2 || !strings.Contains(errs, filepath.Join(bad, "harness", "a.yaml")+":3:11: trigger: event is null when the entity is evaluated without an event") {
		t.Fatalf("exit %d\nstderr %s", code, errs)
	}
}
