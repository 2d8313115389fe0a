package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `fullsend run` applies the harness's overlays to what it starts: an
// overlay selected by the event's source system replaces run.env (and
// run.timeout); one that does not match leaves the harness's own.
func TestRunAppliesOverlays(t *testing.T) {
	tests := []struct {
		name, system string
		has, hasNot  string
	}{
		{"jira: the overlay's env", "jira", "JIRA_EXTRA=je", "MODEL_KEY="},
		{"gitlab: the harness's own env", "gitlab", "MODEL_KEY=mk", "JIRA_EXTRA="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			envFile := filepath.Join(t.TempDir(), "env")
			f := newRunFixture(t, "env="+envFile)
			triage, err := os.ReadFile(filepath.Join(f.dir, "triage.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			f.write(t, "triage.yaml", string(triage)+`overlays:
  - when: event.source.system == "jira"
    run:
      env: [`+runAgentEnv+`, JIRA_EXTRA]
      timeout: 10s
`)
			f.env["JIRA_EXTRA"] = "je"
			f.write(t, "event.json", strings.Replace(runEventJSON, `"system":"jira"`, `"system":"`+tc.system+`"`, 1))
			code, stderr := f.run(t, "run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"), "--poll-lock", "")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			got, err := os.ReadFile(envFile)
			if err != nil {
				t.Fatal(err)
			}
			env := "\n" + string(got)
			if !strings.Contains(env, "\n"+tc.has+"\n") || strings.Contains(env, "\n"+tc.hasNot) {
				t.Errorf("agent env lacks %q or has %q:\n%s", tc.has, tc.hasNot, got)
			}
		})
	}
}
