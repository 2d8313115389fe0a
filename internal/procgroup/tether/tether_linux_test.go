//go:build linux

package tether

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/procgroup/procgrouptest"
)

// TestMain lets the test binary play the tether (`fullsend
// internal-tether`), as Start runs it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Command {
		if err := Main(os.Stdin); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// group starts a process group of two processes, a shell and its
// child, and returns the shell's pid (the group's id) and the child's.
func group(t *testing.T) (leader, child int, wait func()) {
	t.Helper()
	cmd := exec.Command("sh", "-c", `sleep 600 & echo $!; wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fscan(out, &child); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	return cmd.Process.Pid, child, func() { _ = cmd.Wait() }
}

// held is a started tether (this test binary) holding a new group.
func held(t *testing.T) (tt *Tether, child int, wait func()) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	leader, child, wait := group(t)
	if tt, err = Start(exe, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := tt.Hold(leader); err != nil {
		t.Fatal(err)
	}
	return tt, child, wait
}

// When the run dies (its end of the socket closed without a release),
// the tether kills the whole group it holds, the leader's child too.
func TestTheGroupDiesWithTheRun(t *testing.T) {
	for _, release := range []bool{false, true} {
		t.Run(fmt.Sprintf("released %v", release), func(t *testing.T) {
			tt, child, wait := held(t)
			if release {
				tt.Release()
				if gone, err := procgrouptest.ExitedWithin(child, 0); err != nil || gone {
					t.Fatalf("a released tether killed the group (gone %v, %v)", gone, err)
				}
				return
			}
			// What the kernel does when the run dies: its end is closed.
			_ = tt.w.Close()
			if err := tt.cmd.Wait(); err != nil {
				t.Fatalf("tether: %v", err)
			}
			wait()
			if gone, err := procgrouptest.ExitedWithin(child, 10*time.Second); err != nil || !gone {
				t.Fatalf("the leader's child outlived the run (gone %v, %v)", gone, err)
			}
		})
	}
}

// A signal meant for the run's agent or terminal does not end the
// tether: only the end of its input does.
func TestTheTetherIgnoresSignals(t *testing.T) {
	tt, child, wait := held(t) // Start returned: the tether is ready, deaf to signals

	for _, s := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		_ = syscall.Kill(tt.cmd.Process.Pid, s)
	}
	_ = tt.w.Close()
	if err := tt.cmd.Wait(); err != nil {
		t.Fatalf("tether: %v (a signal ended it)", err)
	}
	wait()
	if gone, err := procgrouptest.ExitedWithin(child, 10*time.Second); err != nil || !gone {
		t.Fatalf("the group outlived the run (gone %v, %v)", gone, err)
	}
}
