//go:build linux

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fullsend-dev/fullsend/internal/sandbox/sandboxtest"
)

// ciID owns the checkouts of these tests, like a CI user: a hand-back to
// the wrong owner shows.
var ciID = Identity{UID: 64056, GID: 64056}

// checkout creates base/name holding README and sub/a.go, all ciID's.
func checkout(t *testing.T, base, name string) string {
	t.Helper()
	dir := filepath.Join(base, name)
	writeTree(t, dir, "README", "sub/a.go")
	chownAll(t, dir, ciID)
	return dir
}

func writeTree(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func chownAll(t *testing.T, dir string, id Identity) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(id.UID), int(id.GID))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newWorkspace is a base directory holding a checkout (base/repo, see
// checkout) and a records directory of the test's own.
func newWorkspace(t *testing.T) (base, dir, recs string) {
	t.Helper()
	base = t.TempDir()
	return base, checkout(t, base, "repo"), recordsDir(t)
}

// runDir is a run directory as the runner creates it (0700).
func runDir(t *testing.T, base, name string) string {
	t.Helper()
	d := filepath.Join(base, name)
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

func hand(t *testing.T, w Workspace) *Lease {
	t.Helper()
	l, err := Hand(w, agentID)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func giveBack(t *testing.T, l *Lease) Kept {
	t.Helper()
	k, err := l.Return()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func wantOwner(t *testing.T, want Identity, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if got := owner(t, p); got != want {
			t.Errorf("%s owned by %v, want %v", p, got, want)
		}
	}
}

func modeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// An agent's hard link in the checkout to a file outside it changes
// nothing of that file: not at the hand-over of a second run in the same
// checkout (the local executor), not at the hand-backs; the links are
// reported. With protected_hardlinks 0 (the kernel's default) the agent
// can link any file it can reach, with 1 a file others may read and
// write, or its own.
func TestHardLinksKeepTheirOwner(t *testing.T) {
	needRoot(t)
	for _, tc := range []struct {
		name, protected string
		// target creates the file the agent links, outside the checkout,
		// during run A (tmp is A's TMPDIR); it returns its path and owner.
		target func(t *testing.T, base, tmp string) (string, Identity)
	}{
		{"protected_hardlinks 0: a private file of root's", "0", func(t *testing.T, base, _ string) (string, Identity) {
			return rootFile(t, base, 0o600), Identity{}
		}},
		{"protected_hardlinks 1: a file of root's others may write", "1", func(t *testing.T, base, _ string) (string, Identity) {
			return rootFile(t, base, 0o666), Identity{}
		}},
		{"protected_hardlinks 1: the agent's own file outside", "1", func(t *testing.T, _, tmp string) (string, Identity) {
			p := filepath.Join(tmp, "mine")
			if out, err := runAs(exec.Command("/bin/sh", "-c", "echo x >"+p)); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			return p, agentID
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sandboxtest.SetProtectedHardlinks(t, tc.protected)
			base, dir, recs := newWorkspace(t)
			a := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-a"), Records: recs})
			target, was := tc.target(t, base, a.Tmp)
			mode := modeOf(t, target)
			link := filepath.Join(dir, "sub", "link")
			if out, err := runAs(exec.Command("/bin/ln", target, link)); err != nil {
				t.Fatalf("the agent could not link %s: %v: %s", target, err, out)
			}
			b := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-b"), Records: recs})
			wantOwner(t, was, target)
			if b.Kept.N != 1 || b.Kept.Paths[0] != link {
				t.Errorf("run B's hand-over kept %+v, want %s", b.Kept, link)
			}
			if k := giveBack(t, b); k.N != 0 {
				t.Errorf("run B's Return (not the last) walked the checkout: %+v", k)
			}
			if k := giveBack(t, a); k.N != 1 || k.Paths[0] != link {
				t.Errorf("the hand-back kept %+v, want %s", k, link)
			}
			wantOwner(t, was, target)
			if got := modeOf(t, target); got != mode {
				t.Errorf("%s mode %v, want %v", target, got, mode)
			}
			wantOwner(t, ciID, dir, filepath.Join(dir, "README"), filepath.Join(dir, "sub", "a.go"))
		})
	}
}

// rootFile is a file of root's with mode in base/outside (0755).
func rootFile(t *testing.T, base string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(base, "outside", "secret")
	writeTree(t, filepath.Join(base, "outside"), "secret")
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// A run starting while the last one hands the checkout back records the
// owner the checkout goes back to, not the agent that still had it.
func TestHandReadsTheOwnerUnderTheLock(t *testing.T) {
	needRoot(t)
	base, dir, recs := newWorkspace(t)
	a := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-a"), Records: recs})
	b := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-b"), Records: recs, beforeLock: func() {
		giveBack(t, a) // the last run of the checkout ends while B starts
	}})
	wantOwner(t, agentID, dir)
	giveBack(t, b)
	wantOwner(t, ciID, dir, filepath.Join(dir, "README"))
}

// A directory widened for one run stays passable while any run needs it
// and gets its mode back when the last one ends, whatever the order and
// whether the runs share a checkout.
func TestWidenedDirectoriesAreCounted(t *testing.T) {
	needRoot(t)
	for _, tc := range []struct {
		name        string
		shared      bool
		firstReturn string
	}{
		{"one checkout, the first run ends first", true, "a"},
		{"one checkout, the second run ends first", true, "b"},
		{"two checkouts, the first run ends first", false, "a"},
		{"two checkouts, the second run ends first", false, "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, recs := t.TempDir(), recordsDir(t)
			home := filepath.Join(base, "home")
			dirA, dirB := checkout(t, home, "a"), checkout(t, home, "b")
			if tc.shared {
				dirB = dirA
			}
			if err := os.Chmod(home, 0o750); err != nil {
				t.Fatal(err)
			}
			leases := map[string]*Lease{
				"a": hand(t, Workspace{Dir: dirA, Run: runDir(t, base, "run-a"), Records: recs}),
				"b": hand(t, Workspace{Dir: dirB, Run: runDir(t, base, "run-b"), Records: recs}),
			}
			first, second := leases[tc.firstReturn], leases["a"]
			if tc.firstReturn == "a" {
				second = leases["b"]
			}
			giveBack(t, first)
			if m := modeOf(t, home); m != 0o751 {
				t.Errorf("%s mode %v while a run still needs it, want 0751", home, m)
			}
			giveBack(t, second)
			if m := modeOf(t, home); m != 0o750 {
				t.Errorf("%s mode %v after the runs, want 0750", home, m)
			}
			if ents, _ := os.ReadDir(recs); len(ents) != 0 {
				t.Errorf("records left: %v", ents)
			}
		})
	}
}

// On a file system without extended attributes (ramfs) concurrent runs
// still hand the checkout back to its owner, also after a run killed
// before its hand-back.
func TestConcurrentRunsWithoutXattrs(t *testing.T) {
	needRoot(t)
	mnt := t.TempDir()
	if err := unix.Mount("fullsend-test", mnt, "ramfs", 0, "mode=0755"); err != nil {
		t.Skipf("cannot mount a ramfs: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
	if err := unix.Setxattr(mnt, "trusted.fullsend.test", []byte("1"), 0); !errors.Is(err, unix.EOPNOTSUPP) {
		t.Fatalf("setxattr on ramfs: %v, want EOPNOTSUPP: the test needs a file system without xattrs", err)
	}
	base, recs := t.TempDir(), recordsDir(t)
	dir := checkout(t, mnt, "repo")
	a := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-a"), Records: recs})
	b := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-b"), Records: recs})
	giveBack(t, a)
	giveBack(t, b)
	wantOwner(t, ciID, dir, filepath.Join(dir, "README"))

	hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-c"), Records: recs}).abandon()
	wantOwner(t, agentID, dir)
	giveBack(t, hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-d"), Records: recs}))
	wantOwner(t, ciID, dir, filepath.Join(dir, "README"))
}

// A lock the agent takes on its checkout (it owns it, so it can open it)
// does not stop the hand-back: the runs' locks are on records only root
// can open.
func TestAgentLockDoesNotKeepTheCheckout(t *testing.T) {
	needRoot(t)
	base, dir, recs := newWorkspace(t)
	l := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run"), Records: recs})
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Flock(fd, unix.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	giveBack(t, l)
	wantOwner(t, ciID, dir, filepath.Join(dir, "README"))
}

// The records directory must be fullsend's alone: one another user
// created first (the fallback lives in the shared temporary directory),
// one others may enter, or a link is refused before anything changes.
func TestRecordsDirectoryMustBeFullsends(t *testing.T) {
	needRoot(t)
	for _, tc := range []struct {
		name string
		make func(t *testing.T, p string)
	}{
		{"another user's", func(t *testing.T, p string) { mkdirAs(t, p, 0o700, agentID) }},
		{"open to others", func(t *testing.T, p string) { mkdirAs(t, p, 0o755, Identity{}) }},
		{"a link to a good one", func(t *testing.T, p string) {
			mkdirAs(t, p+".real", 0o700, Identity{})
			if err := os.Symlink(p+".real", p); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			recs := filepath.Join(base, "records")
			tc.make(t, recs)
			dir := checkout(t, base, "repo")
			_, err := Hand(Workspace{Dir: dir, Run: runDir(t, base, "run"), Records: recs}, agentID)
			if err == nil || !strings.Contains(err.Error(), "is not a directory of uid 0 with mode 0700") {
				t.Fatalf("Hand = %v", err)
			}
			wantOwner(t, ciID, dir)
		})
	}
}

func mkdirAs(t *testing.T, p string, mode os.FileMode, id Identity) {
	t.Helper()
	if err := os.Mkdir(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, int(id.UID), int(id.GID)); err != nil {
		t.Fatal(err)
	}
}

// What an agent (here: another run's, racing the hand-over) can do to
// the names of the checkout while the walk runs changes no file outside
// it.
func TestWalkRaces(t *testing.T) {
	needRoot(t)
	for _, tc := range []struct {
		name  string
		stage stage
		at    string // the entry (relative to the checkout) where the agent acts
		act   func(t *testing.T, dir, outside string)
		kept  []string // what the hand-over keeps
	}{
		{"a directory swapped for a link to one outside before it is opened", beforeOpen, "sub", swapForLink, nil},
		{"a directory swapped for a link to one outside after it was checked", beforeChown, "sub", swapForLink, nil},
		{"a directory swapped for a fifo", beforeOpen, "sub", func(t *testing.T, dir, _ string) {
			must(t, os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "sub.old")))
			must(t, unix.Mkfifo(filepath.Join(dir, "sub"), 0o644))
		}, nil},
		{"a hard link to a file outside put in a directory before it is read", beforeOpen, "sub", func(t *testing.T, dir, outside string) {
			must(t, os.Link(filepath.Join(outside, "secret"), filepath.Join(dir, "sub", "zz")))
		}, []string{"sub/zz"}},
		{"a file replaced by a hard link to a file outside between its check and its chown", beforeChown, "README", func(t *testing.T, dir, outside string) {
			must(t, os.Link(filepath.Join(outside, "secret"), filepath.Join(dir, "tmp")))
			must(t, os.Rename(filepath.Join(dir, "tmp"), filepath.Join(dir, "README")))
		}, nil},
		{"a file linked to a name outside between its check and its chown", beforeChown, "README", func(t *testing.T, dir, outside string) {
			must(t, os.Link(filepath.Join(dir, "README"), filepath.Join(outside, "stolen")))
		}, []string{"README"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, dir, recs := newWorkspace(t)
			outside := filepath.Join(base, "outside")
			writeTree(t, outside, "secret", "d/f")
			at, done := filepath.Join(dir, tc.at), false
			hook := func(s stage, p string) {
				if s == tc.stage && p == at && !done {
					done = true
					tc.act(t, dir, outside)
				}
			}
			l := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run"), Records: recs, hook: hook})
			if !done {
				t.Fatalf("the walk never reached %s", at)
			}
			var want []string
			for _, k := range tc.kept {
				want = append(want, filepath.Join(dir, k))
			}
			if strings.Join(l.Kept.Paths, " ") != strings.Join(want, " ") {
				t.Errorf("kept %v, want %v", l.Kept.Paths, want)
			}
			wantOwner(t, Identity{}, outside, filepath.Join(outside, "secret"), filepath.Join(outside, "d"), filepath.Join(outside, "d", "f"))
			if _, err := os.Lstat(filepath.Join(outside, "stolen")); err == nil {
				wantOwner(t, ciID, filepath.Join(outside, "stolen"))
			}
			giveBack(t, l)
			wantOwner(t, Identity{}, filepath.Join(outside, "secret"), filepath.Join(outside, "d", "f"))
		})
	}
}

func swapForLink(t *testing.T, dir, outside string) {
	must(t, os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "sub.old")))
	must(t, os.Symlink(filepath.Join(outside, "d"), filepath.Join(dir, "sub")))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A tree deeper than any path (2100 levels of "d/", more than PATH_MAX)
// is handed back whole: the walk goes by descriptors, one per level.
func TestDeepTreeIsHandedBack(t *testing.T) {
	needRoot(t)
	base, dir, recs := newWorkspace(t)
	l := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run"), Records: recs})
	deepTree(t, dir, 2100)
	giveBack(t, l)
	if got := deepest(t, dir, 2100); got != ciID {
		t.Errorf("the deepest directory is owned by %v", got)
	}
}

// A tree deeper than the descriptors fullsend may open makes the
// hand-back fail, but not stop: the rest of the checkout goes back, the
// record stays, and the next run's hand-back completes it.
func TestHandBackGoesOnAfterAnError(t *testing.T) {
	needRoot(t)
	base, dir, recs := newWorkspace(t)
	l := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-a"), Records: recs})
	deepTree(t, dir, 300)
	var lim syscall.Rlimit
	must(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	low := lim
	low.Cur = 200
	must(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low))
	_, err := l.Return()
	must(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim))
	if err == nil || !strings.Contains(err.Error(), "too many open files") {
		t.Fatalf("Return = %v, want too many open files", err)
	}
	wantOwner(t, ciID, dir, filepath.Join(dir, "README"), filepath.Join(dir, "sub", "a.go"))
	if got := deepest(t, dir, 300); got != agentID {
		t.Fatalf("the deepest directory is owned by %v: the descriptors did not run out", got)
	}
	if ents, _ := os.ReadDir(recs); len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "checkout-") {
		t.Fatalf("records after the failed hand-back: %v, want the checkout's", ents)
	}
	giveBack(t, hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-b"), Records: recs}))
	if got := deepest(t, dir, 300); got != ciID {
		t.Errorf("the deepest directory is owned by %v after the next run", got)
	}
}

// deepTree makes dir/d/d/…/d, depth levels, the agent's (as the agent
// would, but made for it, by descriptors).
func deepTree(t *testing.T, dir string, depth int) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(t, err)
	for i := 0; i < depth; i++ {
		must(t, unix.Mkdirat(fd, "d", 0o755))
		must(t, unix.Fchownat(fd, "d", int(agentID.UID), int(agentID.GID), 0))
		next, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		must(t, err)
		fd = next
	}
	unix.Close(fd)
}

// deepest is the owner of the last directory of deepTree.
func deepest(t *testing.T, dir string, depth int) Identity {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(t, err)
	for i := 0; i < depth; i++ {
		next, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		unix.Close(fd)
		must(t, err)
		fd = next
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	must(t, unix.Fstat(fd, &st))
	return Identity{UID: st.Uid, GID: st.Gid}
}

// A record holds its path quoted: a checkout (and a widened directory)
// whose name holds a newline goes back like any other.
func TestPathsWithANewline(t *testing.T) {
	needRoot(t)
	base, recs := t.TempDir(), recordsDir(t)
	home := filepath.Join(base, "ho\nme")
	dir := checkout(t, home, "re\npo")
	must(t, os.Chmod(home, 0o750))
	a := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-a"), Records: recs})
	b := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run-b"), Records: recs})
	giveBack(t, a)
	giveBack(t, b)
	wantOwner(t, ciID, dir, filepath.Join(dir, "README"))
	if m := modeOf(t, home); m != 0o750 {
		t.Errorf("mode %v, want 0750", m)
	}
}

// A setuid or setgid program the agent leaves in the checkout is not one
// of its owner's after the hand-back: the chown clears both bits.
func TestSetuidFilesLoseTheirBits(t *testing.T) {
	needRoot(t)
	base, dir, recs := newWorkspace(t)
	l := hand(t, Workspace{Dir: dir, Run: runDir(t, base, "run"), Records: recs})
	cmd := exec.Command("/bin/sh", "-c", "cp /bin/true evil && chmod 6755 evil")
	cmd.Dir = dir
	if out, err := runAs(cmd); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	giveBack(t, l)
	evil := filepath.Join(dir, "evil")
	wantOwner(t, ciID, evil)
	fi, err := os.Lstat(evil)
	must(t, err)
	if fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
		t.Errorf("%s is %v after the hand-back", evil, fi.Mode())
	}
}
