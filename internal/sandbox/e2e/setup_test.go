//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	"go.uber.org/goleak"
)

// binDir holds the fullsend binary TestMain builds, reachable by every
// user (the CI user runs it).
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fullsend-isolation-bin-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := 1
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "fullsend"), "../../../cmd/fullsend").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
	} else {
		code = m.Run()
		if code == 0 {
			if err := goleak.Find(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				code = 1
			}
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// sudoers is the drop-in the test installs: the CI user has passwordless
// sudo, as on a GitHub-hosted runner, and so has the agent's identity
// (nobody), so that only no_new_privs stands between the agent and root.
const sudoers = ciUser + " ALL=(ALL) NOPASSWD:ALL\nnobody ALL=(ALL) NOPASSWD:ALL\n"

const sudoersFile = "/etc/sudoers.d/fullsend-isolation-test"

// setupCIUser installs Debian's sudo when it is missing, creates ciUser
// with a 0750 home holding a ~/.netrc (0600) and writes the sudoers
// drop-in; all but the package
// are removed when the test ends. It also checks the control: without
// no_new_privs, the agent's identity does get root through sudo.
func setupCIUser(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("sudo"); err != nil {
		install := func() error {
			out, err := exec.Command("apt-get", "install", "-y", "-q", "sudo").CombinedOutput()
			if err != nil {
				return fmt.Errorf("%v: %s", err, out)
			}
			return nil
		}
		if err := install(); err != nil {
			if out, err := exec.Command("apt-get", "update", "-q").CombinedOutput(); err != nil {
				t.Fatalf("apt-get update: %v: %s", err, out)
			}
			if err := install(); err != nil {
				t.Fatalf("apt-get install sudo: %v", err)
			}
		}
	}
	_ = exec.Command("userdel", "-r", ciUser).Run() // left over by a killed run
	if out, err := exec.Command("useradd", "--create-home", "--user-group", "--shell", "/bin/bash", ciUser).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("userdel", "-r", ciUser).CombinedOutput(); err != nil {
			t.Errorf("userdel: %v: %s", err, out)
		}
	})
	if err := os.WriteFile(sudoersFile, []byte(sudoers), 0o440); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(sudoersFile) })
	u := lookupCIUser(t)
	if err := os.Chmod(u.HomeDir, 0o750); err != nil {
		t.Fatal(err)
	}
	netrc := filepath.Join(u.HomeDir, ".netrc")
	if err := os.WriteFile(netrc, []byte("machine api.example.com login ci password "+netrcToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(netrc, uid, gid); err != nil {
		t.Fatal(err)
	}
	for _, who := range [][]string{{"--reuid=" + ciUser, "--regid=" + ciUser, "--init-groups"}, {"--reuid=65534", "--regid=65534", "--clear-groups"}} {
		if out, err := exec.Command("setpriv", append(who, "--", "sudo", "-n", "true")...).CombinedOutput(); err != nil {
			t.Fatalf("control: %v cannot use sudo without no_new_privs: %v: %s", who, err, out)
		}
	}
}

func lookupCIUser(t *testing.T) *user.User {
	t.Helper()
	u, err := user.Lookup(ciUser)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// userDir is a fresh directory in the CI user's home, like a runner's
// work directory.
func userDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(lookupCIUser(t).HomeDir, "job-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// chownUser gives dir and everything below it to the CI user.
func chownUser(t *testing.T, dir string) {
	t.Helper()
	u := lookupCIUser(t)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}
