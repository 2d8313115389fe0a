//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// reapTick is how often Reap looks again while processes are ending.
const reapTick = 5 * time.Millisecond

// Reaper ends what an isolated agent leaves outside its process group (a
// setsid, a double fork, a fork loop), so that nothing of one run is left
// to read the next run's agent, which may run as the same user.
//
// Where the kernel offers it (cgroup v2 with cgroup.kill, Linux 5.14),
// the agent starts in a cgroup of its own below fullsend's (clone3 with
// CLONE_INTO_CGROUP, so nothing of it ever runs outside): an unprivileged
// process cannot leave it, and cgroup.kill ends all of it at once, forks
// in flight included. Elsewhere fullsend is the reaper of the agent's
// orphans (PR_SET_CHILD_SUBREAPER) and kills its children of the agent's
// uid until none is left or ReapLimit has passed.
type Reaper struct {
	id Identity
	cg *cgroup // nil: the subreaper's loop
	// NoCgroup says why the agent has no cgroup ("" when it has one).
	NoCgroup string

	limit time.Duration
	now   func() time.Time
	sleep func(time.Duration)
}

// NewReaper makes fullsend the subreaper of its descendants' orphans and,
// where it can, creates the agent's cgroup. Neither failing stops a run:
// the error says what protection is missing.
func NewReaper(id Identity) (*Reaper, error) {
	r := &Reaper{id: id, limit: ReapLimit, now: time.Now, sleep: time.Sleep}
	err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	r.cg, r.NoCgroup = newCgroup()
	return r, err
}

// Start starts cmd as the identity (Starter), in the agent's cgroup when
// there is one.
func (r *Reaper) Start(cmd *exec.Cmd) error {
	if r.cg != nil {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &unix.SysProcAttr{}
		}
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, r.cg.fd
	}
	err := Starter(r.id)(cmd)
	if err != nil && r.cg != nil {
		r.cg.remove() // nothing runs there
		r.cg = nil
	}
	return err
}

// Reap kills and reaps, once the agent (the leader of process group pgid)
// has ended, every process it left: all of its cgroup, and every child of
// fullsend's still running as the agent's uid (its orphans). It removes
// the cgroup when it is empty.
func (r *Reaper) Reap(pgid int) Reaped {
	res := Reaped{Cgroup: r.cg != nil}
	deadline := r.now().Add(r.limit)
	if r.cg != nil {
		res.Killed = r.cg.kill(pgid)
	}
	killed := map[int]bool{}
	for {
		// Every process the agent left is a descendant of one of
		// fullsend's children, which stays its child (a zombie at worst)
		// until reaped here: a look that finds no child at all, not
		// even one just reaped, finds nothing left.
		live, found := r.reapZombies(killed)
		if found == 0 && (r.cg == nil || !r.cg.populated()) {
			break
		}
		if !r.now().Before(deadline) {
			res.Left = pids(live)
			if r.cg != nil {
				res.Left = r.cg.procs()
			}
			break
		}
		// A child of fullsend's stays a zombie until reaped here: its pid
		// cannot have gone to another process. In the cgroup, cgroup.kill
		// has killed everything already.
		for _, k := range live {
			if r.cg == nil && !killed[k.pid] && unix.Kill(k.pid, unix.SIGKILL) == nil {
				killed[k.pid] = true
				if k.pgid != pgid {
					res.Killed++
				}
			}
		}
		r.sleep(reapTick)
	}
	if r.cg != nil && len(res.Left) == 0 {
		r.cg.remove()
	}
	return res
}

// reapZombies reaps fullsend's children of the agent's uid that have
// ended and returns the others and how many children it found.
func (r *Reaper) reapZombies(killed map[int]bool) (live []child, found int) {
	kids := childrenAs(os.Getpid(), r.id.UID)
	for _, k := range kids {
		if !k.zombie {
			live = append(live, k)
			continue
		}
		var ws unix.WaitStatus
		_, _ = unix.Wait4(k.pid, &ws, unix.WNOHANG, nil)
		delete(killed, k.pid)
	}
	return live, len(kids)
}

func pids(cs []child) []int {
	var out []int
	for _, c := range cs {
		out = append(out, c.pid)
	}
	return out
}

// child is a child process of fullsend's, from /proc.
type child struct {
	pid, pgid int
	zombie    bool
}

// childrenAs lists the processes whose parent is ppid and whose real uid
// is uid, from /proc.
func childrenAs(ppid int, uid uint32) []child {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []child
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok && p.ppid == ppid && p.uid == uid {
			out = append(out, child{pid: pid, pgid: p.pgid, zombie: p.state == 'Z'})
		}
	}
	return out
}

// proc is what readProc reads of a process.
type proc struct {
	state      byte
	ppid, pgid int
	uid        uint32 // real
}

// readProc reads the state, parent and group of pid from /proc/pid/stat
// and its real uid from /proc/pid/status (which, unlike the owner of
// /proc/pid, a process cannot hide by making itself non-dumpable).
func readProc(pid int) (proc, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	stat, err := os.ReadFile(dir + "stat")
	if err != nil {
		return proc{}, false
	}
	// pid (comm) state ppid pgrp …; comm may hold anything but ends at
	// the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	f := strings.Fields(string(stat[i+1:]))
	if i < 0 || len(f) < 3 || len(f[0]) != 1 {
		return proc{}, false
	}
	var p proc
	var err1, err2 error
	p.state = f[0][0]
	p.ppid, err1 = strconv.Atoi(f[1])
	p.pgid, err2 = strconv.Atoi(f[2])
	status, err := os.ReadFile(dir + "status")
	if err1 != nil || err2 != nil || err != nil {
		return proc{}, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Uid:"); ok {
			fields := strings.Fields(v)
			if len(fields) == 0 {
				return proc{}, false
			}
			u, err := strconv.ParseUint(fields[0], 10, 32)
			p.uid = uint32(u)
			return p, err == nil
		}
	}
	return proc{}, false
}
