//go:build linux

package runner

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/sandbox"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// An isolated agent runs as its identity with a HOME and TMPDIR of its
// own, can write in its working directory and can reopen its standard
// error (`>/dev/stderr`), whose pipe it owns; its output reaches
// fullsend's writers. A file it links from its TMPDIR into the checkout
// is left as it is by the hand-back, with a warning.
func TestRunIsolatedAgent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching the agent's user needs root (CI runs these tests as root)")
	}
	work := t.TempDir()
	var out, log syncio.Buffer
	spec := Spec{Harness: "triage", Command: []string{"/bin/sh", "-c",
		`echo "id=$(id -u):$(id -g) home=$HOME tmp=$TMPDIR user=$USER"; echo to-stderr >/dev/stderr; echo x >"$HOME/h" && echo x >"$TMPDIR/t" && ln "$TMPDIR/t" linked && echo done >result; setsid sh -c 'echo $$ >bg.tmp && mv bg.tmp bgpid && exec sleep 300' </dev/null >/dev/null 2>&1 & while [ ! -e bgpid ]; do :; done`},
		Timeout: 10 * time.Second, Event: jiraEvent(), Getenv: envOf(map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/root", "USER": "root"}),
		Dir: work, TempDir: t.TempDir(), Stdout: &out, Stderr: &out, Log: testLogger(&log),
		Sandbox: sandbox.Plan{Mode: sandbox.ModeUser, ID: sandbox.Identity{UID: 65534, GID: 65534}}}
	res, err := Run(context.Background(), spec)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("res %+v err %v\n%s\n%s", res, err, out.String(), log.String())
	}
	got := out.String()
	if !strings.Contains(got, "id=65534:65534 home=") || !strings.Contains(got, "to-stderr") || strings.Contains(got, "home=/root") ||
		strings.Contains(got, "user=root") {
		t.Fatalf("agent output:\n%s", got)
	}
	if b, err := os.ReadFile(filepath.Join(work, "result")); err != nil || string(b) != "done\n" {
		t.Fatalf("result %q, %v", b, err)
	}
	b, err := os.ReadFile(filepath.Join(work, "bgpid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the process the agent left in a session of its own survived the run (kill 0: %v)", err)
	}
	if !strings.Contains(log.String(), "outside its process group; killed them") {
		t.Errorf("no warning about the leftover process:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "the hand-back left files with more than one link as they were") ||
		!strings.Contains(log.String(), filepath.Join(work, "linked")) {
		t.Errorf("no warning about the file the agent linked from its TMPDIR:\n%s", log.String())
	}
	if o := ownerOfPath(t, filepath.Join(work, "result")); o != 0 {
		t.Fatalf("the agent's file is owned by uid %d after the run, want the workspace's owner 0", o)
	}
}

// Without isolation the run says so once, as a warning naming the reason.
func TestRunWarnsWhenIsolationUnavailable(t *testing.T) {
	var log syncio.Buffer
	spec := Spec{Harness: "triage", Command: []string{"/bin/true"}, Timeout: 10 * time.Second, Event: jiraEvent(),
		Getenv: envOf(map[string]string{"PATH": "/usr/bin:/bin"}), TempDir: t.TempDir(), Log: testLogger(&log),
		Sandbox: sandbox.Plan{Mode: sandbox.ModeUnavailable, Reason: "fullsend runs as uid 1001, not root"}}
	if _, err := Run(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "level=WARN"); n != 1 || !strings.Contains(log.String(), "uid 1001, not root") ||
		!strings.Contains(log.String(), "isolation=unavailable") {
		t.Fatalf("%d warnings:\n%s", n, log.String())
	}
}

func ownerOfPath(t *testing.T, p string) uint32 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Uid
}
