package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRefusesHarnessOutsideConfigDir: `fullsend run` reads a harness
// only through the loader's containment check, so a source that leaves
// the config directory (by "..", or by a symlink) is refused with exit 2
// and a file:line:col error, and the agent never starts.
func TestRunRefusesHarnessOutsideConfigDir(t *testing.T) {
	cases := []struct {
		name, source, want string
		link               bool
	}{
		{"dot-dot", "../../somewhere/h.yaml", `config.yaml:5:13: agents[0].source: "../../somewhere/h.yaml": a ".." component is not allowed`, false},
		{"symlink", "escape.yaml", `config.yaml:5:13: agents[0].source: "escape.yaml" resolves (through a symlink) to `, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ran := filepath.Join(t.TempDir(), "ran")
			f := newRunFixture(t, "touch="+ran)
			outside := filepath.Join(t.TempDir(), "h.yaml")
			triage, err := os.ReadFile(filepath.Join(f.dir, "triage.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(outside, triage, 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.link {
				if err := os.Symlink(outside, filepath.Join(f.dir, "escape.yaml")); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := os.ReadFile(filepath.Join(f.dir, "config.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			f.write(t, "config.yaml", strings.Replace(string(cfg), "source: triage.yaml", "source: "+tc.source, 1))
			code, stderr := f.run(t, "run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"))
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d\n%s", code, ExitUsage, stderr)
			}
			if !strings.Contains(stderr, f.dir+string(filepath.Separator)+tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Error("the agent ran")
			}
		})
	}
}
