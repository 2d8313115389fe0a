package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/procgroup/procgrouptest"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

func TestProcessExitCodes(t *testing.T) {
	tests := []struct {
		name         string
		steps        []string
		timeout      time.Duration
		grace        time.Duration
		wantCode     int
		wantTimedOut bool
		wantOut      string
		wantErrOut   string
	}{
		{name: "success streams output", steps: []string{"out=hello", "err=warn"}, wantCode: 0, wantOut: "hello\n", wantErrOut: "warn\n"},
		{name: "failure code propagated", steps: []string{"exit=7"}, wantCode: 7},
		{name: "timeout terminates", steps: []string{"out=ready", "hang"}, timeout: 100 * time.Millisecond, grace: 5 * time.Second, wantCode: ExitTimeout, wantTimedOut: true, wantOut: "ready\n"},
		{name: "timeout kills after grace", steps: []string{"ignore-term", "out=ready", "hang"}, timeout: 100 * time.Millisecond, grace: 150 * time.Millisecond, wantCode: ExitTimeout, wantTimedOut: true, wantOut: "ready\n"},
		{name: "finishes before timeout", steps: []string{"exit=3"}, timeout: 10 * time.Second, wantCode: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var errOut bytes.Buffer
			out := newReadyWriter()
			// The clock lets run.timeout and the grace expire once the
			// agent is ready: the timeout always, the grace only where
			// the agent ignores SIGTERM (otherwise never).
			clock := fakeClock{ready: out.ready, fire: map[time.Duration]bool{tc.timeout: tc.wantTimedOut, tc.grace: tc.grace < time.Second}}
			start := time.Now()
			res, err := Process{Command: agentCmd(t, tc.steps...), Stdout: out, Stderr: &errOut,
				Timeout: tc.timeout, Grace: tc.grace, After: clock.After}.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tc.wantCode || res.TimedOut != tc.wantTimedOut {
				t.Fatalf("result %+v, want code %d timedOut %v", res, tc.wantCode, tc.wantTimedOut)
			}
			if out.String() != tc.wantOut || errOut.String() != tc.wantErrOut {
				t.Fatalf("stdout %q stderr %q, want %q %q", out.String(), errOut.String(), tc.wantOut, tc.wantErrOut)
			}
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Fatalf("took %s", elapsed)
			}
		})
	}
}

func TestProcessForwardsSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			trapped := filepath.Join(t.TempDir(), "trapped")
			sigs := make(chan os.Signal, 1)
			done := make(chan Result, 1)
			out := newReadyWriter()
			go func() {
				res, _ := Process{Command: agentCmd(t, "trap-term="+trapped, "out=ready", "hang"),
					Stdout: out, Signals: sigs, Grace: 5 * time.Second}.Run(context.Background())
				done <- res
			}()
			<-out.ready
			sigs <- sig
			res := <-done
			got, _ := os.ReadFile(trapped)
			if res.ExitCode != 0 || res.Signal != sig || !strings.Contains(string(got), sigName(sig)) {
				t.Fatalf("result %+v, agent saw %q, want it to trap %s and exit 0", res, got, sig)
			}
		})
	}
}

func TestProcessSignalDefaultActionGives128PlusN(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	done := make(chan Result, 1)
	out := newReadyWriter()
	go func() {
		res, _ := Process{Command: agentCmd(t, "out=ready", "hang"), Stdout: out, Signals: sigs, Grace: 5 * time.Second}.Run(context.Background())
		done <- res
	}()
	<-out.ready
	sigs <- syscall.SIGTERM
	if res := <-done; res.ExitCode != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit code %d, want %d", res.ExitCode, 128+int(syscall.SIGTERM))
	}
}

func TestProcessCancelTerminates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := newReadyWriter()
	go func() { <-out.ready; cancel() }()
	res, err := Process{Command: agentCmd(t, "out=ready", "hang"), Stdout: out, Grace: 5 * time.Second}.Run(ctx)
	if err != nil || res.ExitCode != 128+int(syscall.SIGTERM) {
		t.Fatalf("res %+v err %v, want terminated by SIGTERM", res, err)
	}
}

func TestProcessStartError(t *testing.T) {
	_, err := Process{Command: []string{filepath.Join(t.TempDir(), "no-such-agent")}}.Run(context.Background())
	if se, ok := err.(*StartError); !ok || !strings.Contains(se.Error(), "no-such-agent") {
		t.Fatalf("err = %v, want *StartError naming the command", err)
	}
	if _, err := (Process{}).Run(context.Background()); err == nil {
		t.Fatal("empty command accepted")
	}
}

// sigName is how Go's os.Signal prints sig.
func sigName(sig syscall.Signal) string { return sig.String() }

// readyWriter collects an agent's output; ready is closed once the agent
// printed the line "ready".
type readyWriter struct {
	syncio.Buffer
	ready <-chan struct{}
}

func newReadyWriter() *readyWriter {
	w := &readyWriter{}
	w.ready = w.When(syncio.Contains("ready\n"))
	return w
}

// fakeClock is Process.After for tests: the channels of the durations in
// fire receive once ready is closed, the others never.
type fakeClock struct {
	ready <-chan struct{}
	fire  map[time.Duration]bool
}

func (c fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	if c.fire[d] {
		go func() {
			<-c.ready
			ch <- time.Time{}
		}()
	}
	return ch
}

// What the agent leaves running in its process group must not outlive the
// run: the lock is released and the key's next run starts when the agent
// ends, so a straggler would work on the subject beside it.
func TestProcessKillsStragglersWhenTheAgentEnds(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("waiting for the straggler needs Linux pidfds")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	res, err := Process{Command: []string{"/bin/sh", "-c", `sleep 30 </dev/null >/dev/null 2>&1 & echo $! >"$1"`, "sh", pidFile},
		Grace: 5 * time.Second}.Run(context.Background())
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := mustAtoi(t, strings.TrimSpace(string(b)))
	gone, err := procgrouptest.ExitedWithin(pid, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !gone {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatal("the agent's background process is still running after the run")
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// wait returns once the agent printed "ready"; it fails the test after
// 10s (a safety net for a broken run, not a timing).
func (w *readyWriter) wait(t *testing.T) {
	t.Helper()
	select {
	case <-w.ready:
	case <-time.After(10 * time.Second):
		t.Errorf("the agent never printed ready; output %q", w.String())
	}
}
