//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// stage names the points of a walk where a test acts as an agent racing
// it: before an entry is opened, and between its check and its chown.
type stage int

const (
	beforeOpen stage = iota
	beforeChown
)

// walker chowns a tree to one identity, one entry at a time: each entry
// is opened once, relative to its directory's descriptor, without
// following links (O_PATH|O_NOFOLLOW), checked on that descriptor, and
// chowned through it, so an agent renaming, linking or swapping names
// meanwhile changes nothing but which names the walk sees.
type walker struct {
	id   Identity
	dev  uint64 // the tree's file system; other ones are mount points
	kept Kept
	errs []error
	nerr int
	hook func(stage, string)
}

// chownTree chowns the open directory root (named path) and everything
// below it on its file system to id; files with several links are kept.
// It does not stop at an entry it cannot handle: it goes on with the
// others and returns the errors.
func chownTree(root *os.File, path string, id Identity, hook func(stage, string)) (Kept, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(root.Fd()), &st); err != nil {
		return Kept{}, fmt.Errorf("sandbox: %s: %w", path, err)
	}
	w := &walker{id: id, dev: st.Dev, hook: hook}
	if err := unix.Fchown(int(root.Fd()), int(id.UID), int(id.GID)); err != nil {
		return Kept{}, fmt.Errorf("sandbox: chown %s: %w", path, err)
	}
	sub, err := unix.Openat(int(root.Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Kept{}, fmt.Errorf("sandbox: open %s: %w", path, err)
	}
	w.dir(sub, path)
	if w.nerr > len(w.errs) {
		w.errs = append(w.errs, fmt.Errorf("and %d more", w.nerr-len(w.errs)))
	}
	return w.kept, errors.Join(w.errs...)
}

func (w *walker) fail(err error) {
	if w.nerr < maxListed {
		w.errs = append(w.errs, err)
	}
	w.nerr++
}

// dir chowns the entries of the open directory fd (and closes it).
func (w *walker) dir(fd int, path string) {
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		w.fail(fmt.Errorf("sandbox: read %s: %w", path, err))
	}
	for _, name := range names {
		w.entry(fd, filepath.Join(path, name), name)
	}
}

// entry chowns one entry of the directory fd; a directory is walked.
func (w *walker) entry(fd int, path, name string) {
	if w.hook != nil {
		w.hook(beforeOpen, path)
	}
	efd, err := unix.Openat(fd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return // gone meanwhile
	}
	if err != nil {
		w.fail(fmt.Errorf("sandbox: open %s: %w", path, err))
		return
	}
	sub := w.check(efd, path)
	unix.Close(efd)
	if sub >= 0 {
		w.dir(sub, path)
	}
}

// check handles the entry open as efd: a file is chowned (or kept), a
// directory is chowned and returned open for reading (else -1).
func (w *walker) check(efd int, path string) int {
	var st unix.Stat_t
	if err := unix.Fstat(efd, &st); err != nil {
		w.fail(fmt.Errorf("sandbox: %s: %w", path, err))
		return -1
	}
	if st.Dev != w.dev {
		return -1 // a mount point: not part of the checkout's file system
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if !isDir && st.Nlink > 1 {
		w.kept.add(path)
		return -1
	}
	if w.hook != nil {
		w.hook(beforeChown, path)
	}
	if err := unix.Fchownat(efd, "", int(w.id.UID), int(w.id.GID), unix.AT_EMPTY_PATH); err != nil {
		w.fail(fmt.Errorf("sandbox: chown %s: %w", path, err))
		return -1
	}
	if !isDir {
		w.linkedSince(efd, path, &st)
		return -1
	}
	// The same directory, opened for reading through its descriptor:
	// no name is looked up again.
	sub, err := unix.Openat(efd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		w.fail(fmt.Errorf("sandbox: open %s: %w", path, err))
		return -1
	}
	return sub
}

// linkedSince undoes the chown of the file efd (st before it) when it got
// another link between the check and the chown: that name may be outside
// the checkout, where the file must keep the owner it had.
func (w *walker) linkedSince(efd int, path string, st *unix.Stat_t) {
	var now unix.Stat_t
	if err := unix.Fstat(efd, &now); err != nil || now.Nlink <= 1 {
		return
	}
	if err := unix.Fchownat(efd, "", int(st.Uid), int(st.Gid), unix.AT_EMPTY_PATH); err != nil {
		w.fail(fmt.Errorf("sandbox: chown %s back: %w", path, err))
	}
	w.kept.add(path)
}
