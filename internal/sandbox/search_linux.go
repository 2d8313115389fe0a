//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// widened is a directory above a workspace that a run holds passable:
// the directory itself, open, and its record, held.
type widened struct {
	dir *os.File
	rec *record
}

// searchable makes every directory from / down to dir passable by id.
// A directory id cannot pass through gets the search bit for others (o+x)
// and a record of its mode; every run that passes through a directory so
// recorded holds the record, and the last one to let go restores the bit
// (reference counting across the processes of concurrent runs, whatever
// their checkouts).
func (l *Lease) searchable(dir string, id Identity) error {
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == "/" || d == "." {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		w, err := l.widen(chain[i], id)
		if err != nil {
			return err
		}
		if w != nil {
			l.searched = append(l.searched, *w)
		}
	}
	return nil
}

// widen makes path passable for id if needed and returns what this run
// now holds of it (nil: nothing to hold).
func (l *Lease) widen(path string, id Identity) (*widened, error) {
	f, err := os.OpenFile(path, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: %s: %w", path, err)
	}
	rec, err := l.recs.lock(keyOf("search", &st))
	if err != nil {
		f.Close()
		return nil, err
	}
	defer rec.unlock()
	held, err := widenLocked(f, rec, path, id)
	if err != nil || !held {
		if !held && rec.alone() {
			_ = rec.remove() // the empty record of a directory nobody widened
		}
		rec.close()
		f.Close()
		return nil, err
	}
	return &widened{dir: f, rec: rec}, nil
}

// widenLocked decides, under rec's mutex, whether this run must hold the
// directory f: a run before it widened it (rec says so), or id cannot
// pass through it, so it gets o+x now.
func widenLocked(f *os.File, rec *record, path string, id Identity) (held bool, err error) {
	lines, err := rec.read()
	if err != nil {
		return false, err
	}
	if len(lines) == 2 && lines[1] == strconv.Quote(path) {
		return true, rec.hold()
	}
	var st unix.Stat_t // read under the mutex: a last run may just have restored it
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return false, fmt.Errorf("sandbox: %s: %w", path, err)
	}
	if canSearch(&st, id) {
		return false, nil
	}
	mode := st.Mode & 0o7777
	if err := rec.write(strconv.FormatUint(uint64(mode), 8), strconv.Quote(path)); err != nil {
		return false, err
	}
	if err := rec.hold(); err != nil {
		return false, err
	}
	if err := chmodDir(f, mode|0o001); err != nil {
		_, _ = rec.drop()
		return false, fmt.Errorf("sandbox: let the agent reach its workspace through %s: %w", path, err)
	}
	return true, nil
}

// narrow lets go of the directories this run held, deepest first; the
// last run holding one takes its o+x away again unless the directory had
// it before.
func (l *Lease) narrow() error {
	var err error
	for i := len(l.searched) - 1; i >= 0; i-- {
		err = errors.Join(err, narrowOne(l.searched[i]))
	}
	l.searched = nil
	return err
}

func narrowOne(w widened) error {
	defer w.dir.Close()
	defer w.rec.close()
	if err := w.rec.relock(); err != nil {
		return err
	}
	last, err := w.rec.drop()
	if err != nil || !last {
		return err
	}
	lines, err := w.rec.read()
	if err != nil {
		return err
	}
	if len(lines) != 2 {
		return fmt.Errorf("sandbox: record %s is not a mode and a path: %q", w.rec.path, lines)
	}
	mode, err := strconv.ParseUint(lines[0], 8, 32)
	if err != nil {
		return fmt.Errorf("sandbox: record %s: %w", w.rec.path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(w.dir.Fd()), &st); err != nil {
		return fmt.Errorf("sandbox: %s: %w", w.rec.path, err)
	}
	// Only the bit fullsend added goes: other changes made meanwhile stay.
	if err := chmodDir(w.dir, st.Mode&0o7776|uint32(mode)&0o001); err != nil {
		return fmt.Errorf("sandbox: restore the mode of %s: %w", lines[1], err)
	}
	return w.rec.remove()
}

// chmodDir sets the mode of the directory f (open O_PATH, so that a
// directory fullsend may only pass through is no obstacle) through a
// descriptor of the same directory.
func chmodDir(f *os.File, mode uint32) error {
	fd, err := unix.Openat(int(f.Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fchmod(fd, mode)
}

// canSearch reports whether id (with no supplementary groups) may pass
// through the directory st.
func canSearch(st *unix.Stat_t, id Identity) bool {
	switch {
	case st.Uid == id.UID:
		return st.Mode&0o100 != 0
	case st.Gid == id.GID:
		return st.Mode&0o010 != 0
	}
	return st.Mode&0o001 != 0
}
