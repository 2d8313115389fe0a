package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// TestWorkflowsForSteering: while an enabled harness steers, the
// generated GitHub run job gets the permissions its runs need (the runs
// of its scope, the item's comments, the record reply), and a GitLab
// generation without --gitlab-agent-token says its runs steer nothing.
func TestWorkflowsForSteering(t *testing.T) {
	for _, tc := range []struct {
		name, steer string
		enabled     bool
	}{
		{"steers", "steer: {enabled: true}\n", true},
		{"does not", "", false},
		{"steers, disabled", "steer: {enabled: true}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			agent := "  - name: triage\n    source: harness/triage.yaml\n"
			if tc.name == "steers, disabled" {
				agent += "    enabled: false\n"
			}
			cfg := testfs.WriteTree(t, map[string]string{
				"config.yaml":         "version: 1\nrepo: acme/platform\nagents:\n" + agent,
				"harness/triage.yaml": "role: triage\ntrigger: event.transition.comment.command == \"/fs-triage\"\n" + tc.steer,
			})
			dir := t.TempDir()
			code, _, errs := runCLI(t, "", nil, "--config-dir", cfg, "workflows", "generate", "--platform", "github",
				"--dir", dir, "--fullsend-version", "v1.0.0")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			b, err := os.ReadFile(filepath.Join(dir, "fullsend-run.yml"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(b), "actions: read") && strings.Contains(string(b), "issues: write"); got != tc.enabled {
				t.Errorf("steering permissions granted %v, want %v", got, tc.enabled)
			}
			code, _, errs = runCLI(t, "", nil, "--config-dir", cfg, "workflows", "generate", "--platform", "gitlab",
				"--dir", t.TempDir(), "--fullsend-version", "v1.0.0")
			if code != 0 {
				t.Fatalf("gitlab: exit %d: %s", code, errs)
			}
			if got := strings.Contains(errs, "--gitlab-agent-token"); got != tc.enabled {
				t.Errorf("gitlab: warned %v, want %v: %s", got, tc.enabled, errs)
			}
			code, _, errs = runCLI(t, "", nil, "--config-dir", cfg, "workflows", "generate", "--platform", "gitlab",
				"--dir", t.TempDir(), "--fullsend-version", "v1.0.0", "--gitlab-agent-token")
			if code != 0 || strings.Contains(errs, "steer nothing") {
				t.Errorf("gitlab with the agent token: exit %d, %s", code, errs)
			}
		})
	}
}
