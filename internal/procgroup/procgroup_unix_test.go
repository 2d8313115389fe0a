//go:build unix

package procgroup

import (
	"bufio"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// start runs script in a new group and waits until it printed "ready".
func start(t *testing.T, script string, o Options) *Group {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	// An os.Pipe, not StdoutPipe: the group's Wait runs at once and would
	// close a StdoutPipe before the test reads it.
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout = w
	g, err := Start(cmd, o)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	return g
}

// clock expires every grace at once (fire) or never.
func clock(fire bool) func(time.Duration) <-chan time.Time {
	return func(time.Duration) <-chan time.Time {
		ch := make(chan time.Time, 1)
		if fire {
			ch <- time.Time{}
		}
		return ch
	}
}

func TestTerminate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		script   string
		fire     bool
		wantCode int
		wantKill bool
	}{
		{"ends on the signal", "echo ready; exec sleep 30", false, 128 + int(syscall.SIGTERM), false},
		{"killed after the grace", `trap "" TERM; echo ready; exec sleep 30`, true, 128 + int(syscall.SIGKILL), true},
		{"grace not over: signal only", `trap "echo got-term >&2; exit 5" TERM; echo ready; sleep 30 & wait`, false, 5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var killed atomic.Bool
			g := start(t, tc.script, Options{After: clock(tc.fire), OnKill: func() { killed.Store(true) }})
			if err := g.Terminate(syscall.SIGTERM, time.Second); err != nil {
				t.Fatal(err)
			}
			ps, _ := g.Wait()
			_, _ = g.Kill() // the sleep a trapping shell leaves behind
			if code := ExitCode(ps); code != tc.wantCode || killed.Load() != tc.wantKill {
				t.Fatalf("exit %d killed %v, want %d %v", code, killed.Load(), tc.wantCode, tc.wantKill)
			}
		})
	}
}

// Kill reports whether the child left processes in its group.
func TestKillFindsStragglers(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   bool
	}{
		{"echo ready", false},
		{"sleep 30 >/dev/null & echo ready", true},
	} {
		g := start(t, tc.script, Options{})
		if _, err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		found, err := g.Kill()
		if err != nil || found != tc.want {
			t.Errorf("%q: found %v err %v, want %v", tc.script, found, err, tc.want)
		}
	}
}

func TestExitCode(t *testing.T) {
	if ExitCode(nil) != 1 {
		t.Fatal("no state must be 1")
	}
	cmd := exec.Command("/bin/sh", "-c", "exit 7")
	g, err := Start(cmd, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ps, _ := g.Wait(); ExitCode(ps) != 7 {
		t.Fatalf("exit code %d, want 7", ExitCode(ps))
	}
}

func TestStartError(t *testing.T) {
	if _, err := Start(exec.Command("/no/such/binary"), Options{}); err == nil {
		t.Fatal("started a missing binary")
	}
}
