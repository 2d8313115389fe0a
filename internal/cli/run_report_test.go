package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunCommandWritesMetricsTextfile(t *testing.T) {
	for _, viaEnv := range []bool{false, true} {
		name := "flag"
		if viaEnv {
			name = "FULLSEND_METRICS_TEXTFILE"
		}
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t)
			path := filepath.Join(t.TempDir(), "fullsend.prom")
			args := []string{"run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"), "--poll-lock", f.pollLock()}
			if viaEnv {
				f.env["FULLSEND_METRICS_TEXTFILE"] = path
			} else {
				args = append(args, "--metrics-textfile", path)
			}
			if code, stderr := f.run(t, args...); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"# TYPE fullsend_run_isolation_total counter\n",
				`fullsend_run_isolation_total{mode="none"} 1` + "\n", `fullsend_run_isolation_total{mode="unavailable"} 0` + "\n",
				`fullsend_run_isolation_total{mode="user"} 0` + "\n"} {
				if !strings.Contains(string(got), want) {
					t.Fatalf("textfile lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

// A textfile that cannot be written is bad input, found before the agent
// starts and before the lock is touched.
func TestRunCommandBadMetricsTextfileExits2(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	f := newRunFixture(t, "touch="+ran)
	path := filepath.Join(t.TempDir(), "missing", "fullsend.prom")
	before, _ := f.sim.Property(f.issue, f.prop)
	code, stderr := f.run(t, "run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"),
		"--poll-lock", f.pollLock(), "--metrics-textfile", path)
	if code != ExitUsage || !strings.Contains(stderr, "--metrics-textfile "+path) {
		t.Fatalf("exit %d, want 2 naming --metrics-textfile\n%s", code, stderr)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("agent started")
	}
	if after, _ := f.sim.Property(f.issue, f.prop); string(after) != string(before) {
		t.Fatalf("lock changed: %s -> %s", before, after)
	}
}
