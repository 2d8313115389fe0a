package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes name → content under dir, with the given mode.
func writeFiles(t *testing.T, dir string, mode os.FileMode, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func TestValidateWarnsAboutMissingPrograms(t *testing.T) {
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	cfg := filepath.Join(work, ".fullsend")
	writeFiles(t, cfg, 0o644, map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nagents:\n" +
			"  - {name: ok, source: ok.yaml}\n  - {name: path, source: path.yaml}\n" +
			"  - {name: gone, source: gone.yaml}\n  - {name: plain, source: plain.yaml}\n" +
			"  - {name: off, source: off.yaml, enabled: false}\n  - {name: manual, source: manual.yaml}\n",
		"ok.yaml":     "role: r\nrun:\n  command: [\"./agents/ok.sh\"]\n",
		"path.yaml":   "role: r\nrun:\n  command: [tool, --flag]\n",
		"gone.yaml":   "role: r\nrun:\n  command:\n    - ./agents/gone.sh\n",
		"plain.yaml":  "role: r\nrun:\n  command: [\"./agents/plain.txt\"]\n",
		"off.yaml":    "role: r\nrun: {command: [nowhere]}\n",
		"manual.yaml": "role: r\n",
	})
	writeFiles(t, work, 0o755, map[string]string{"agents/ok.sh": "#!/bin/sh\n", "bin/tool": "#!/bin/sh\n"})
	writeFiles(t, work, 0o644, map[string]string{"agents/plain.txt": "not a program\n"})
	t.Chdir(work)

	code, out, errs := runValidate(t, ".fullsend", map[string]string{"PATH": bin})
	if code != ExitOK || out != "ok: 6 agents, 0 triggers compiled, 3 warnings\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	p := func(name string) string { return filepath.Join(".fullsend", name) }
	want := []string{
		p("gone.yaml") + ":4:7: WARNING: run.command: ./agents/gone.sh (relative to the working directory " + work + ", where agents start): no such file",
		p("plain.yaml") + ":3:13: WARNING: run.command: ./agents/plain.txt (relative to the working directory " + work + ", where agents start): not executable (chmod +x)",
		p("off.yaml") + `:2:17: WARNING: run.command: "nowhere" not found on $PATH`,
	}
	if got := strings.TrimRight(errs, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestValidateJSON(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, 0o644, map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nagents:\n  - {name: a, source: a.yaml}\n  - {name: b, source: b.yaml}\n",
		"a.yaml":      "role: r\ntrigger: event.repo == 1\n",
		"b.yaml":      "role: r\nrun: {command: [/nonexistent/agent]}\n",
	})
	var out, errb bytes.Buffer
	app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code := Run(context.Background(), app, []string{"validate", "--config-dir", dir, "-o", "json"})
	var res validateResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout %q: %v", out.String(), err)
	}
	if code != ExitUsage || res.OK || len(res.Problems) != 1 || res.Agents != 1 {
		t.Fatalf("exit %d, result %+v", code, res)
	}
	if w := res.Warnings; len(w) != 1 || w[0].File != filepath.Join(dir, "b.yaml") || w[0].Line != 2 || w[0].Col != 17 ||
		w[0].Message != "WARNING: run.command: /nonexistent/agent: no such file" {
		t.Errorf("warnings %+v", w)
	}
	if p := res.Problems[0]; p.File != filepath.Join(dir, "a.yaml") || p.Line != 2 || !strings.Contains(p.Message, "trigger:") {
		t.Errorf("problem %+v", p)
	}
	if strings.Contains(errb.String(), "a.yaml:") {
		t.Errorf("json mode printed problems on stderr too: %q", errb.String())
	}
}

// Run from elsewhere, the warning points at the directory the example's
// relative agent paths work from.
func TestValidateWarningNamesTheDirectoryThatWorks(t *testing.T) {
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	code, out, errs := runValidate(t, filepath.Join(examples, ".fullsend"), nil)
	if code != ExitOK || out != "ok: 3 agents, 3 triggers compiled, 3 warnings\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	want := filepath.Join(examples, ".fullsend", "harness", "triage.yaml") + ":10:13: WARNING: run.command: ./agents/triage.sh"
	if !strings.HasPrefix(errs, want) || strings.Count(errs, "; it exists in "+examples+": run fullsend from there\n") != 3 {
		t.Errorf("stderr %q", errs)
	}
}

func TestBadOutputFormat(t *testing.T) {
	for _, args := range [][]string{
		{"validate", "-o", "yaml"},
		{"poll", "seed", "--output", "yaml"},
		{"poll", "cancel", "--issue", "PROJ-1", "-o", "yaml"},
	} {
		code, out, errs := runCLI(t, "", nil, append([]string{"--config-dir", t.TempDir()}, args...)...)
		if code != ExitUsage || out != "" || errs != "fullsend: --output \"yaml\": want text or json\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// One agent is "1 agent" (and one warning, sh not being on the empty
// $PATH, "1 warning"): counts in messages go through english.Count.
func TestValidateCountsOneAgent(t *testing.T) {
	code, out, errs := runCLI(t, "", map[string]string{"JIRA_BASE_URL": "http://127.0.0.1:1"},
		"--config-dir", filepath.Join("..", "..", "examples", "rehearsal", ".fullsend"), "validate")
	if code != ExitOK || out != "ok: 1 agent, 1 trigger compiled, 1 warning\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
	}
}
