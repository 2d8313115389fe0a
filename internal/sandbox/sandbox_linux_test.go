//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

var agentID = Identity{UID: 64055, GID: 64055}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root (CI runs these tests as root)")
	}
}

// recordsDir is a records directory of the test's own.
func recordsDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "records")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func owner(t *testing.T, path string) Identity {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return Identity{UID: st.Uid, GID: st.Gid}
}

// The started agent has the identity, no supplementary groups,
// no_new_privs and no capabilities.
func TestStarterDropsPrivileges(t *testing.T) {
	needRoot(t)
	cmd := exec.Command("/bin/cat", "/proc/self/status")
	var out strings.Builder
	cmd.Stdout = &out
	if err := Starter(agentID)(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	status := out.String()
	for _, want := range []string{"Uid:\t64055\t64055\t64055\t64055\n", "Gid:\t64055\t64055\t64055\t64055\n", "Groups:\t \n",
		"NoNewPrivs:\t1\n", "CapInh:\t0000000000000000\n", "CapPrm:\t0000000000000000\n", "CapEff:\t0000000000000000\n",
		"CapAmb:\t0000000000000000\n"} {
		if !strings.Contains(status, want) {
			t.Errorf("agent status lacks %q:\n%s", want, status)
		}
	}
	if err := Starter(Identity{UID: 0, GID: 5})(exec.Command("/bin/true")); err == nil {
		t.Error("Starter accepted root")
	}
}

// Hand gives the checkout (without following links), a HOME and a TMPDIR
// to the agent and makes an unreachable checkout reachable; the agent can
// write there; Return gives everything back, the agent's files included,
// and restores the directory modes.
func TestHandAndReturn(t *testing.T) {
	needRoot(t)
	base := t.TempDir()
	home := filepath.Join(base, "home") // like a 0750 home directory of the CI user
	dir := filepath.Join(home, "work", "repo")
	outside := filepath.Join(base, "outside.txt")
	for _, d := range []string{filepath.Join(dir, "sub"), filepath.Join(base, "run")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{outside, filepath.Join(dir, "README"), filepath.Join(dir, "sub", "a.go")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o750); err != nil {
		t.Fatal(err)
	}
	orig := owner(t, dir)
	l, err := Hand(Workspace{Dir: dir, Run: filepath.Join(base, "run"), Records: recordsDir(t)}, agentID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "README"), filepath.Join(dir, "sub", "a.go"), filepath.Join(dir, "link"), l.Home, l.Tmp} {
		if got := owner(t, p); got != agentID {
			t.Errorf("%s owned by %v during the run, want %v", p, got, agentID)
		}
	}
	if got := owner(t, outside); got != orig {
		t.Errorf("the link's target was chowned to %v", got)
	}
	cmd := exec.Command("/bin/sh", "-c", "echo done > result && echo h > \"$H/h\" && ln -s /etc/passwd evil")
	cmd.Dir, cmd.Env = dir, []string{"H=" + l.Home}
	if out, err := runAs(cmd); err != nil {
		t.Fatalf("agent could not work in its workspace: %v\n%s", err, out)
	}
	if _, err := l.Return(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "result"), filepath.Join(dir, "sub", "a.go"), filepath.Join(dir, "evil")} {
		if got := owner(t, p); got != orig {
			t.Errorf("%s owned by %v after the run, want %v", p, got, orig)
		}
	}
	if got := owner(t, "/etc/passwd"); got.UID != 0 {
		t.Errorf("/etc/passwd now owned by %v", got)
	}
	if fi, err := os.Stat(home); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("home mode after the run: %v, %v", fi.Mode(), err)
	}
	if _, err := Hand(Workspace{Dir: "/", Run: filepath.Join(base, "run")}, agentID); err == nil || !strings.Contains(err.Error(), "run fullsend in the checkout") {
		t.Errorf("Hand(/) = %v", err)
	}
}

func runAs(cmd *exec.Cmd) (string, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := Starter(agentID)(cmd); err != nil {
		return "", err
	}
	err := cmd.Wait()
	return out.String(), err
}
