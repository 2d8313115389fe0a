package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkflowsGitLab(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, "", nil, "workflows", "generate", "--platform", "gitlab", "--dir", dir, "--fullsend-version", "v1.0.0")
	if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(dir, ".gitlab-ci.yml")) {
		t.Fatalf("generate: %d %q %q", code, out, errs)
	}
	code, out, errs = runCLI(t, "", nil, "workflows", "check", "--dir", dir)
	if code != 0 || !strings.Contains(out, "ok: 1 file, 2 jobs checked") {
		t.Fatalf("check generated: %d %q %q", code, out, errs)
	}
	p := filepath.Join(dir, ".gitlab-ci.yml")
	data, _ := os.ReadFile(p)
	broken := strings.Replace(string(data), "on_new_commit: none", "on_new_commit: interruptible", 1)
	if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "", nil, "workflows", "check", "--dir", dir)
	if code != 2 || !strings.Contains(out, p+":19: workflow:auto_cancel:on_new_commit is \"interruptible\"") {
		t.Fatalf("check broken: %d %q", code, out)
	}
}

func TestWorkflowsGitLabRejectsGitHubOnlyFlags(t *testing.T) {
	for _, flag := range [][]string{{"--reusable"}, {"--cron", "0 * * * *"}} {
		dir := t.TempDir()
		args := append([]string{"workflows", "generate", "--platform", "gitlab", "--dir", dir, "--fullsend-version", "v1.0.0"}, flag...)
		code, out, errs := runCLI(t, "", nil, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "apply to --platform github only") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", flag, code, out, errs)
		}
		if _, err := os.Stat(filepath.Join(dir, ".gitlab-ci.yml")); err == nil {
			t.Errorf("%v: .gitlab-ci.yml written", flag)
		}
	}
}

func TestDispatchGitLabPipeline(t *testing.T) {
	sim, base := startGitLabSim(t)
	cfgDir := filepath.Join("..", "..", "examples", ".fullsend")
	ev := filepath.Join("..", "..", "examples", "events", "triage-comment.json")
	env := map[string]string{"GITLAB_API_URL": base, "GITLAB_TOKEN": sim.Token()}
	for i := 0; i < 3; i++ {
		code, out, errs := runCLI(t, "", env, "dispatch", "--config-dir", cfgDir, "--log-format", "json",
			"--input-file", ev, "--output-driver", "gitlab-pipeline")
		if code != 0 {
			t.Fatalf("dispatch %d: %d %q %q", i, code, out, errs)
		}
		if strings.Contains(out+errs, sim.Token()) {
			t.Fatal("output leaks the token")
		}
	}
	var statuses []string
	for _, p := range sim.Pipelines("acme/platform") {
		statuses = append(statuses, p.Status)
	}
	if strings.Join(statuses, ",") != "pending,canceled,waiting_for_resource" {
		t.Fatalf("pipeline statuses %v, want the active one, a cancelled one and the newest waiting", statuses)
	}
	code, _, errs := runCLI(t, "", map[string]string{"GITLAB_API_URL": base}, "dispatch", "--config-dir", cfgDir,
		"--input-file", ev, "--output-driver", "gitlab-pipeline")
	if code != 2 || !strings.Contains(errs, "GITLAB_TOKEN") {
		t.Fatalf("missing token: %d %q", code, errs)
	}
}
