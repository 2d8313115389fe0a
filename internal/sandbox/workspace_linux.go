//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
}

// Lease is a workspace handed to the agent; Return hands it back.
type Lease struct {
	Home, Tmp string // the agent's HOME and TMPDIR, inside Workspace.Run
	dir       string
	owner     Identity // Dir's owner before the hand-over
	searched  []granted
	lock      *os.File // Dir, flock'd shared while the agent has it
}

// granted is an ancestor directory whose mode was widened so that the
// agent can reach its workspace.
type granted struct {
	path string
	mode uint32
}

// Hand gives w to id:
//
//   - every directory above Dir and Run that id could not pass through
//     gets the search bit for others (o+x: enter, not list), restored by
//     Return;
//   - Dir and everything under it on the same file system is chowned to
//     id (symbolic links themselves, never their targets; mount points
//     below Dir are left alone); Return chowns it all back to Dir's owner;
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
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return nil, fmt.Errorf("sandbox: workspace %s: %w", dir, err)
	}
	l := &Lease{dir: dir, owner: Identity{UID: st.Uid, GID: st.Gid}, Home: filepath.Join(w.Run, "home"), Tmp: filepath.Join(w.Run, "tmp")}
	// Runs of the local executor share one working directory: each holds
	// a shared lock on it, and only the last one to end hands it back.
	if l.lock, err = os.Open(dir); err != nil {
		return nil, fmt.Errorf("sandbox: workspace %s: %w", dir, err)
	}
	if err := unix.Flock(int(l.lock.Fd()), unix.LOCK_SH); err != nil {
		l.lock.Close()
		return nil, fmt.Errorf("sandbox: lock workspace %s: %w", dir, err)
	}
	l.owner = l.recordOwner(l.owner)
	if err := l.hand(w.Run, id); err != nil {
		return nil, errors.Join(err, l.Return())
	}
	return l, nil
}

// ownerAttr remembers, on the workspace directory, whom it goes back to
// while runs hold it: a trusted.* attribute, which only root can set or
// read, so an agent cannot redirect the hand-back.
const ownerAttr = "trusted.fullsend.owner"

// recordOwner returns the owner the workspace goes back to: the one a run
// still holding it recorded, else cur, which it records.
func (l *Lease) recordOwner(cur Identity) Identity {
	buf := make([]byte, 32)
	if n, err := unix.Getxattr(l.dir, ownerAttr, buf); err == nil {
		var id Identity
		if _, err := fmt.Sscanf(string(buf[:n]), "%d:%d", &id.UID, &id.GID); err == nil {
			return id
		}
	}
	_ = unix.Setxattr(l.dir, ownerAttr, []byte(cur.String()), 0) // unsupported: concurrent runs share the risk
	return cur
}

func (l *Lease) hand(run string, id Identity) error {
	for _, d := range []string{l.dir, run} {
		if err := l.searchable(filepath.Dir(d), id); err != nil {
			return err
		}
	}
	if err := chownTree(l.dir, id); err != nil {
		return err
	}
	if err := chownTree(run, id); err != nil {
		return err
	}
	for _, d := range []string{l.Home, l.Tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if err := unix.Lchown(d, int(id.UID), int(id.GID)); err != nil {
			return fmt.Errorf("sandbox: chown %s: %w", d, err)
		}
	}
	return nil
}

// Return chowns the checkout back to its owner and restores the modes of
// the directories above it. It is safe against an agent that replaced
// directories by symbolic links meanwhile (the walk opens every directory
// relative to its parent, without following links).
//
// When other runs still hold the same directory (the local executor), it
// leaves it to the last of them.
func (l *Lease) Return() error {
	if l.lock == nil {
		return nil
	}
	defer func() { l.lock.Close(); l.lock = nil }()
	fd := int(l.lock.Fd())
	if err := unix.Flock(fd, unix.LOCK_UN); err != nil {
		return fmt.Errorf("sandbox: unlock workspace %s: %w", l.dir, err)
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return nil // another run still works there; the last one hands it back
	}
	err := chownTree(l.dir, l.owner)
	_ = unix.Removexattr(l.dir, ownerAttr)
	for i := len(l.searched) - 1; i >= 0; i-- {
		g := l.searched[i]
		if e := unix.Chmod(g.path, g.mode); e != nil {
			err = errors.Join(err, fmt.Errorf("sandbox: restore mode of %s: %w", g.path, e))
		}
	}
	l.searched = nil
	return err
}

// searchable makes every directory from / down to dir passable by id.
func (l *Lease) searchable(dir string, id Identity) error {
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == "/" || d == "." {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		var st unix.Stat_t
		if err := unix.Stat(chain[i], &st); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if canSearch(&st, id) {
			continue
		}
		mode := st.Mode & 0o7777
		if err := unix.Chmod(chain[i], mode|0o001); err != nil {
			return fmt.Errorf("sandbox: let the agent reach its workspace through %s: %w", chain[i], err)
		}
		l.searched = append(l.searched, granted{path: chain[i], mode: mode})
	}
	return nil
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

// chownTree chowns root and everything below it on root's file system to
// id, opening each directory relative to its parent with O_NOFOLLOW.
// Entries that disappear meanwhile are skipped.
func chownTree(root string, id Identity) error {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: open %s: %w", root, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return fmt.Errorf("sandbox: %s: %w", root, err)
	}
	if err := unix.Fchown(fd, int(id.UID), int(id.GID)); err != nil {
		unix.Close(fd)
		return fmt.Errorf("sandbox: chown %s: %w", root, err)
	}
	return walkChown(fd, root, st.Dev, id)
}

// walkChown chowns the entries of the open directory fd (and closes it).
func walkChown(fd int, path string, dev uint64, id Identity) error {
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("sandbox: read %s: %w", path, err)
	}
	for _, name := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return fmt.Errorf("sandbox: %s: %w", filepath.Join(path, name), err)
		}
		if st.Dev != dev {
			continue // a mount point: not part of the checkout's file system
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			if err := unix.Fchownat(fd, name, int(id.UID), int(id.GID), unix.AT_SYMLINK_NOFOLLOW); err != nil && !errors.Is(err, unix.ENOENT) {
				return fmt.Errorf("sandbox: chown %s: %w", filepath.Join(path, name), err)
			}
			continue
		}
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			// Replaced by something else meanwhile: chown that, unfollowed.
			if err := unix.Fchownat(fd, name, int(id.UID), int(id.GID), unix.AT_SYMLINK_NOFOLLOW); err != nil && !errors.Is(err, unix.ENOENT) {
				return fmt.Errorf("sandbox: chown %s: %w", filepath.Join(path, name), err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("sandbox: open %s: %w", filepath.Join(path, name), err)
		}
		if err := unix.Fchown(sub, int(id.UID), int(id.GID)); err != nil {
			unix.Close(sub)
			return fmt.Errorf("sandbox: chown %s: %w", filepath.Join(path, name), err)
		}
		if err := walkChown(sub, filepath.Join(path, name), dev, id); err != nil {
			return err
		}
	}
	return nil
}
