//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// DefaultRecords is the directory where runs on one machine keep what
// they share: whom a checkout goes back to and which directories were
// widened for an agent. It is root's alone (0700), so no agent can read,
// change or lock a record; /run is emptied at boot, when no run holds
// anything. Where /run cannot hold it (a read-only root), the records go
// to fullsend-records in the system's temporary directory.
const DefaultRecords = "/run/fullsend"

// records is a directory of record files, one per shared thing.
type records struct{ dir string }

// openRecords returns the records directory dir ("" = DefaultRecords,
// else the fallback), creating it 0700. It refuses a directory that is
// not fullsend's own: another owner, group or others access, a link.
func openRecords(dir string) (records, error) {
	candidates := []string{dir}
	if dir == "" {
		candidates = []string{DefaultRecords, filepath.Join(os.TempDir(), "fullsend-records")}
	}
	var errs []error
	for _, d := range candidates {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			errs = append(errs, err)
			continue
		}
		var st unix.Stat_t
		if err := unix.Lstat(d, &st); err != nil {
			errs = append(errs, err)
			continue
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Uid != uint32(os.Geteuid()) || st.Mode&0o077 != 0 {
			// Not ours: someone else could read or replace the records.
			errs = append(errs, fmt.Errorf("%s is not a directory of uid %d with mode 0700 (mode %o, owner %d); remove it", d, os.Geteuid(), st.Mode&0o7777, st.Uid))
			continue
		}
		return records{dir: d}, nil
	}
	return records{}, fmt.Errorf("sandbox: records: %w", errors.Join(errs...))
}

// A record file's first byte is its mutex (write-locked while a run reads
// or changes what it records) and its second the holders (read-locked by
// every run that needs what it records, for as long as it does). The
// locks are open file description locks: a run that dies drops them.
const (
	mutexByte  = 0
	holderByte = 1
)

// record is one open record file.
type record struct {
	f    *os.File
	path string
}

// lock opens the record of key and takes its mutex (blocking).
func (rs records) lock(key string) (*record, error) {
	path := filepath.Join(rs.dir, key)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("sandbox: record: %w", err)
		}
		r := &record{f: f, path: path}
		if err := r.relock(); err != nil {
			f.Close()
			return nil, err
		}
		// The last holder removes the file under the mutex: retry when
		// this one is no longer the file of its name.
		var a, b unix.Stat_t
		if unix.Fstat(int(f.Fd()), &a) == nil && unix.Lstat(path, &b) == nil && a.Ino == b.Ino && a.Dev == b.Dev {
			return r, nil
		}
		f.Close()
	}
}

func (r *record) setlk(typ int16, at int64, wait bool) error {
	cmd := unix.F_OFD_SETLK
	if wait {
		cmd = unix.F_OFD_SETLKW
	}
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: at, Len: 1}
	return unix.FcntlFlock(r.f.Fd(), cmd, &lk)
}

// read returns the record's lines (none for a new record).
func (r *record) read() ([]string, error) {
	b, err := io.ReadAll(io.NewSectionReader(r.f, 0, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("sandbox: read record %s: %w", r.path, err)
	}
	if len(b) == 0 {
		return nil, nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), nil
}

// write replaces the record's lines.
func (r *record) write(lines ...string) error {
	s := strings.Join(lines, "\n") + "\n"
	if err := r.f.Truncate(0); err != nil {
		return fmt.Errorf("sandbox: write record %s: %w", r.path, err)
	}
	if _, err := r.f.WriteAt([]byte(s), 0); err != nil {
		return fmt.Errorf("sandbox: write record %s: %w", r.path, err)
	}
	return nil
}

// hold registers this run as a holder. Only a run holding the mutex
// write-locks the holder byte, so it never waits.
func (r *record) hold() error {
	if err := r.setlk(unix.F_RDLCK, holderByte, false); err != nil {
		return fmt.Errorf("sandbox: hold record %s: %w", r.path, err)
	}
	return nil
}

// drop ends this run's hold and reports whether no other run holds the
// record. Called with the mutex held.
func (r *record) drop() (last bool, err error) {
	if err := r.setlk(unix.F_UNLCK, holderByte, false); err != nil {
		return false, fmt.Errorf("sandbox: release record %s: %w", r.path, err)
	}
	return r.alone(), nil
}

// alone reports whether no run holds the record (the mutex held).
func (r *record) alone() bool {
	if err := r.setlk(unix.F_WRLCK, holderByte, false); err != nil {
		return false
	}
	_ = r.setlk(unix.F_UNLCK, holderByte, false)
	return true
}

// remove deletes the record (the mutex held, no holder left).
func (r *record) remove() error {
	if err := os.Remove(r.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("sandbox: remove record: %w", err)
	}
	return nil
}

// relock takes the mutex of a record this run kept open (blocking).
func (r *record) relock() error {
	if err := r.setlk(unix.F_WRLCK, mutexByte, true); err != nil {
		return fmt.Errorf("sandbox: lock record %s: %w", r.path, err)
	}
	return nil
}

// unlock releases the mutex; a hold stays.
func (r *record) unlock() { _ = r.setlk(unix.F_UNLCK, mutexByte, false) }

// close drops the file, and with it every lock this run had on it.
func (r *record) close() { r.f.Close() }

// keyOf names the record of what a file is, by file system and inode.
func keyOf(kind string, st *unix.Stat_t) string {
	return fmt.Sprintf("%s-%x-%x", kind, st.Dev, st.Ino)
}
