//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Workspace is what the agent must be able to use.
type Workspace struct {
	// Dir is the checkout the agent works in: its whole tree (on its own
	// file system) is handed to the agent and handed back after the run.
	Dir string
	// Run is the private directory fullsend created for this run (it holds
	// the event file): it becomes the agent's, with home/ and tmp/ inside.
	// fullsend removes it after the run.
	Run string
	// Records is the directory of the records concurrent runs share (""
	// = DefaultRecords).
	Records string

	hook       func(stage, string) // tests: an agent racing the walks
	beforeLock func()              // tests: between opening Dir and locking its record
}

// Lease is a workspace handed to the agent; Return hands it back.
type Lease struct {
	Home, Tmp string // the agent's HOME and TMPDIR, inside Workspace.Run
	// Kept is what the hand-over left to its owner: files with more than
	// one link.
	Kept Kept

	dir      string
	root     *os.File // Dir, open
	rec      *record  // Dir's record, held while the agent has it
	recs     records
	searched []widened
	hook     func(stage, string)
}

// Hand gives w to id:
//
//   - every directory above Dir and Run that id could not pass through
//     gets the search bit for others (o+x: enter, not list), taken away
//     again by the last run that needed it;
//   - Dir and everything under it on the same file system is chowned to
//     id (symbolic links themselves, never their targets; files with more
//     than one hard link are left alone, in Lease.Kept; mount points below
//     Dir too); the last run holding Dir chowns it all back to the owner
//     Dir had before the first;
//   - Run is chowned to id, with home/ and tmp/ (0700) created inside.
//
// The file system root is refused as Dir. On error, what was changed is
// put back.
func Hand(w Workspace, id Identity) (*Lease, error) {
	if err := notRoot(id); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(w.Dir)
	if err != nil {
		return nil, err
	}
	if dir == "/" {
		return nil, errors.New("sandbox: the working directory is /, which cannot be handed to the agent; run fullsend in the checkout")
	}
	recs, err := openRecords(w.Records)
	if err != nil {
		return nil, err
	}
	l := &Lease{dir: dir, recs: recs, hook: w.hook, Home: filepath.Join(w.Run, "home"), Tmp: filepath.Join(w.Run, "tmp")}
	if err := l.hand(w, id); err != nil {
		_, rerr := l.Return()
		return nil, errors.Join(err, rerr)
	}
	return l, nil
}

func (l *Lease) hand(w Workspace, id Identity) error {
	for _, d := range []string{l.dir, w.Run} {
		if err := l.searchable(filepath.Dir(d), id); err != nil {
			return err
		}
	}
	if err := l.handDir(id, w.beforeLock); err != nil {
		return err
	}
	for _, d := range []string{l.Home, l.Tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	run, err := openDir(w.Run)
	if err != nil {
		return err
	}
	defer run.Close()
	kept, err := chownTree(run, w.Run, id, nil)
	if kept.N > 0 {
		err = errors.Join(err, fmt.Errorf("sandbox: %s holds files with several links: %v", w.Run, kept.Paths))
	}
	return err
}

func openDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace %s: %w", path, err)
	}
	return f, nil
}

// handDir records whom Dir goes back to, holds its record and chowns it
// to id, all under the record's mutex: no hand-back runs meanwhile.
func (l *Lease) handDir(id Identity, beforeLock func()) error {
	root, err := openDir(l.dir)
	if err != nil {
		return err
	}
	l.root = root
	var st unix.Stat_t
	if err := unix.Fstat(int(root.Fd()), &st); err != nil {
		return fmt.Errorf("sandbox: workspace %s: %w", l.dir, err)
	}
	if beforeLock != nil {
		beforeLock()
	}
	rec, err := l.recs.lock(keyOf("checkout", &st))
	if err != nil {
		return err
	}
	defer rec.unlock()
	if err := l.recordOwner(rec); err != nil {
		rec.close()
		return err
	}
	if err := rec.hold(); err != nil {
		rec.close()
		return err
	}
	l.rec = rec
	l.Kept, err = chownTree(root, l.dir, id, l.hook)
	return err
}

// recordOwner keeps the owner a run before this one recorded (one still
// holding Dir, or one that was killed before it handed Dir back), else
// records Dir's owner, read now, under the mutex: a hand-back may just
// have ended. A record of another path that no run holds is of a
// directory gone since, whose inode this one reuses.
func (l *Lease) recordOwner(rec *record) error {
	lines, err := rec.read()
	if err != nil {
		return err
	}
	if len(lines) == 2 && (lines[1] == strconv.Quote(l.dir) || !rec.alone()) {
		_, err := parseOwner(rec, lines)
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(l.root.Fd()), &st); err != nil {
		return fmt.Errorf("sandbox: workspace %s: %w", l.dir, err)
	}
	return rec.write(Identity{UID: st.Uid, GID: st.Gid}.String(), strconv.Quote(l.dir))
}

func parseOwner(rec *record, lines []string) (Identity, error) {
	if len(lines) == 2 {
		u, g, _ := strings.Cut(lines[0], ":")
		uid, err1 := strconv.ParseUint(u, 10, 32)
		gid, err2 := strconv.ParseUint(g, 10, 32)
		if err1 == nil && err2 == nil {
			return Identity{UID: uint32(uid), GID: uint32(gid)}, nil
		}
	}
	return Identity{}, fmt.Errorf("sandbox: record %s is not an owner and a path: %q; remove it once no run uses the checkout", rec.path, lines)
}

// Return hands the checkout back and restores the modes of the
// directories above it, as far as this run is the last to hold them
// (the local executor's runs share one checkout). It returns what the
// hand-back kept as it was (files with several links). The walk is safe
// against an agent that renamed, linked or replaced entries by links
// meanwhile: it never follows a name it checked.
func (l *Lease) Return() (Kept, error) {
	var kept Kept
	var err error
	if l.rec != nil {
		kept, err = l.handBack()
	}
	if l.root != nil {
		l.root.Close()
		l.root = nil
	}
	return kept, errors.Join(err, l.narrow())
}

// handBack lets go of Dir's record; the last holder chowns Dir back to
// the recorded owner and removes the record (kept when that failed, so
// that the next run's hand-back tries again).
func (l *Lease) handBack() (Kept, error) {
	rec := l.rec
	l.rec = nil
	defer rec.close()
	if err := rec.relock(); err != nil {
		return Kept{}, err
	}
	last, err := rec.drop()
	if err != nil || !last {
		return Kept{}, err
	}
	lines, err := rec.read()
	if err != nil {
		return Kept{}, err
	}
	owner, err := parseOwner(rec, lines)
	if err != nil {
		return Kept{}, err
	}
	kept, err := chownTree(l.root, l.dir, owner, l.hook)
	if err != nil {
		return kept, err
	}
	return kept, rec.remove()
}
