//go:build linux

package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/sandbox/sandboxtest"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// linkToken is in a file of root's (0600) outside the checkout that the
// racing agent hard-links into it.
const linkToken = "link-SECRET-e2e-5c3d"

// raceAgent is the agent of two runs sharing one checkout (the local
// executor's way): the first to start (a) hard-links a private file of
// root's (%SECRET%) and the CI user's ~/.netrc into the checkout, then
// waits while the second (b) is handed the same checkout, and then tries
// to read and write through its links. The test orders them with the
// fifos in race/.
const raceAgent = `#!/bin/bash
if mkdir race/a-started 2>/dev/null; then role=a; else role=b; fi
if [ $role = a ]; then
	ln %SECRET% race/link-secret
	ln /home/*/.netrc race/link-netrc 2>/dev/null
	echo ready >race/a-ready
	read -r _ <race/a-go
	{
		stat -c '%u:%g %n' race/link-*
		cat race/link-*
		echo pwned >>race/link-secret && echo "wrote through the link"
	} >race/a-found 2>&1
else
	echo ready >race/b-ready
	read -r _ <race/b-go
fi
echo written >agent-wrote-$role.txt
`

// raceRuns runs r twice at once in one checkout: run a links files from
// outside into it, run b is handed the checkout meanwhile, a ends first.
// Nothing outside the checkout changes owner or mode, the agent reads
// none of it, and the checkout (and the CI user's home, widened for the
// agent) is back as it was once both ended.
func raceRuns(t *testing.T, r stepRun) {
	sandboxtest.SetProtectedHardlinks(t, "0")
	sim := jirasim.New(jirasim.Options{RequiredToken: jiraToken})
	jira, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	secret := rootSecret(t)
	root := t.TempDir()
	if r.asUser {
		root = userDir(t)
	}
	checkout := filepath.Join(root, "work", "platform")
	writeCheckout(t, checkout, jira, false, "QUIT")
	writeFile(t, filepath.Join(checkout, ".fullsend", "hostile.yaml"), "role: triage\nrun:\n  command: [\"./race.sh\"]\n  timeout: 30s\n", 0o644)
	writeFile(t, filepath.Join(checkout, "race.sh"), strings.ReplaceAll(raceAgent, "%SECRET%", secret), 0o755)
	for _, f := range []string{"a-ready", "a-go", "b-ready", "b-go"} {
		mkfifo(t, filepath.Join(checkout, "race", f))
	}
	if r.asUser {
		chownUser(t, root)
	}
	outside := snapshot(t, secret, filepath.Dir(secret), filepath.Join(lookupCIUser(t).HomeDir, ".netrc"), "/etc/passwd", "/etc/shadow", binDir)
	above := snapshot(t, ancestors(checkout)...) // widened while the agents run
	owner := ownerOf(t, checkout)

	a := startRace(t, sim, r, checkout, jira)
	a.step(t, "a-ready")
	b := startRace(t, sim, r, checkout, jira)
	b.step(t, "b-ready") // b's hand-over is done, a's links are in the checkout
	outside.check(t, "while both agents run")
	a.step(t, "a-go")
	a.wait(t)
	b.step(t, "b-go")
	b.wait(t)

	outside.check(t, "after the runs")
	above.check(t, "after the runs")
	found, _ := os.ReadFile(filepath.Join(checkout, "race", "a-found"))
	t.Logf("a-found:\n%s", found)
	if !strings.Contains(string(found), "race/link-secret") {
		t.Errorf("the agent made no link to %s:\n%s", secret, found)
	}
	for _, s := range []string{linkToken, netrcToken, "wrote through the link"} {
		if strings.Contains(string(found), s) {
			t.Errorf("through its links the agent reached %q:\n%s", s, found)
		}
	}
	for _, run := range []*raceRun{a, b} {
		if _, left := sim.Property(run.issue, run.prop); left {
			t.Errorf("the poll lock of %s was left behind", run.issue)
		}
	}
	returned(t, checkout, owner)
}

// raceRun is one of the two runs of raceRuns.
type raceRun struct {
	checkout, issue, prop string
	cmd                   *exec.Cmd
	out                   bytes.Buffer
	done                  chan error
}

func startRace(t *testing.T, sim *jirasim.Server, r stepRun, checkout, jira string) *raceRun {
	t.Helper()
	run := &raceRun{checkout: checkout, done: make(chan error, 1)}
	run.issue, run.prop = lockedIssue(sim, r)
	run.cmd = stepCmd(t, r, checkout, jira, run.issue, run.prop)
	run.cmd.Stdout, run.cmd.Stderr = &run.out, &run.out
	if err := run.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { run.done <- run.cmd.Wait() }()
	return run
}

// step meets the agent at the fifo race/name: it reads what the agent
// writes there or writes what it reads. It fails the test when the step
// ended first.
func (run *raceRun) step(t *testing.T, name string) {
	t.Helper()
	path := filepath.Join(run.checkout, "race", name)
	flag := os.O_RDONLY
	if strings.HasSuffix(name, "-go") {
		flag = os.O_WRONLY
	}
	opened := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(path, flag, 0)
		if err == nil {
			if flag == os.O_WRONLY {
				_, err = f.WriteString("go\n")
			} else {
				_, err = f.Read(make([]byte, 16))
			}
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-run.done:
		run.done <- err
		// Unblock the open above: take the fifo's other end.
		other := os.O_WRONLY
		if flag == os.O_WRONLY {
			other = os.O_RDONLY | syscall.O_NONBLOCK
		}
		if f, oerr := os.OpenFile(path, other, 0); oerr == nil {
			<-opened
			f.Close()
		}
		t.Fatalf("the step of %s ended (%v) before %s:\n%s", run.issue, err, name, run.out.String())
	}
}

func (run *raceRun) wait(t *testing.T) {
	t.Helper()
	if err := <-run.done; err != nil {
		t.Fatalf("the step of %s failed: %v\n%s", run.issue, err, run.out.String())
	}
	t.Logf("output of %s:\n%s", run.issue, run.out.String())
}

// rootSecret is a private file of root's holding linkToken, in a
// directory everyone may enter.
func rootSecret(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fullsend-e2e-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "secret")
	writeFile(t, p, linkToken+"\n", 0o600)
	return p
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
}

// ancestors lists the directories above path.
func ancestors(path string) []string {
	var out []string
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == "/" {
			return out
		}
	}
}

// owners is the owner and mode of files, to compare later.
type owners map[string][3]uint32

func snapshot(t *testing.T, paths ...string) owners {
	t.Helper()
	o := owners{}
	o.add(t, paths...)
	return o
}

func (o owners) add(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		o[p] = statOf(t, p)
	}
}

func statOf(t *testing.T, path string) [3]uint32 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return [3]uint32{st.Uid, st.Gid, st.Mode & 0o7777}
}

func (o owners) check(t *testing.T, when string) {
	t.Helper()
	for p, want := range o {
		if got := statOf(t, p); got != want {
			t.Errorf("%s: %s is %d:%d mode %o, was %d:%d mode %o", when, p, got[0], got[1], got[2], want[0], want[1], want[2])
		}
	}
}

// returned checks that everything in checkout is owner's again, but for
// files with several links, which are the outside files checked apart.
func returned(t *testing.T, checkout string, owner [2]uint32) {
	t.Helper()
	err := filepath.WalkDir(checkout, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		if st.Mode&syscall.S_IFMT != syscall.S_IFDIR && st.Nlink > 1 {
			return nil
		}
		if got := [2]uint32{st.Uid, st.Gid}; got != owner {
			t.Errorf("%s owned by %v after the runs, want %v", p, got, owner)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"a", "b"} {
		if b, err := os.ReadFile(filepath.Join(checkout, "agent-wrote-"+role+".txt")); err != nil || string(b) != "written\n" {
			t.Errorf("agent %s did not complete its job: %q, %v", role, b, err)
		}
	}
}
