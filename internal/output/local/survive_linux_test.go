//go:build linux

package local

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/procgroup/procgrouptest"
)

const pollerEnv = "FULLSEND_LOCAL_TEST_POLLER"

// pollerHelper plays `fullsend poll --output-driver local`: it starts one
// "survivor" run (this binary as its `fullsend run`) and waits to be
// killed. It reports false when the binary is not playing a poller.
func pollerHelper() bool {
	dir := os.Getenv(pollerEnv)
	if dir == "" {
		return false
	}
	exe, err := os.Executable()
	if err != nil {
		os.Exit(90)
	}
	os.Setenv(helperEnv, "1")
	d, err := New(Options{MaxParallel: 1, Executable: exe, ConfigDir: "cfg", TempDir: dir, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		os.Exit(91)
	}
	if res := d.Dispatch(context.Background(), []plan.Run{mkRun("survivor", 1, "x")}); res[0].Err != nil {
		os.Exit(92)
	}
	procgrouptest.Hang()
	return true
}

// survivorHelper plays a `fullsend run` whose agent works on after its
// poller died: it catches SIGPIPE as `fullsend run` does, learns of the
// poller's death (PR_SET_PDEATHSIG, this helper's only way to know when
// to go on), writes to its now broken stdout and stderr, and then
// "releases its lock": it writes the file released next to its event file.
func survivorHelper(eventFile string) {
	died := make(chan os.Signal, 1)
	signal.Notify(died, syscall.SIGUSR1)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGUSR1), 0); errno != 0 {
		os.Exit(95)
	}
	fmt.Printf("ready pid=%d\n", os.Getpid())
	<-died
	fmt.Println("working on after the poller died")
	fmt.Fprintln(os.Stderr, "agent finished")
	if err := os.WriteFile(filepath.Join(filepath.Dir(eventFile), "released"), []byte("released"), 0o600); err != nil {
		os.Exit(96)
	}
	os.Exit(0)
}

// A local run is not killed with its poller: the child is the leader of
// its own process group and gets no signal when the poller is SIGKILLed,
// so it works on, writes to the output the dead poller no longer reads,
// and reaches its lock release.
func TestRunOutlivesAKilledPoller(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	poller := exec.Command(exe)
	poller.Env = append(os.Environ(), pollerEnv+"="+dir)
	out, err := poller.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := poller.Start(); err != nil {
		t.Fatal(err)
	}
	pid := 0
	sc := bufio.NewScanner(out)
	for pid == 0 && sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "ready pid="); ok {
			pid, _ = strconv.Atoi(after)
		}
	}
	if pid == 0 {
		_ = poller.Process.Kill()
		_ = poller.Wait()
		t.Fatal("the poller's run never started")
	}
	if err := poller.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = poller.Wait()
	gone, err := procgrouptest.ExitedWithin(pid, 10*time.Second) // a safety net, not a timing
	if err != nil || !gone {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the run did not end after its poller was killed: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "released")); err != nil || string(b) != "released" {
		t.Fatalf("the run did not reach its release after its poller was killed: %q %v", b, err)
	}
}
