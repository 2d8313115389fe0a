//go:build linux

package sandbox

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Subreaper makes this process the reaper of its descendants' orphans
// (PR_SET_CHILD_SUBREAPER): a process the agent leaves behind outside its
// process group (setsid, a double fork) becomes fullsend's child instead
// of init's, where KillOrphans finds it.
func Subreaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// maxRounds bounds KillOrphans: each round kills the children found, whose
// own children then become this process's.
const maxRounds = 16

// KillOrphans kills (SIGKILL) and reaps every child of this process that
// runs as uid, until none is left, and returns how many it killed. Called
// after the agent was waited for, it ends whatever the agent left running,
// so nothing of one run outlives it to read the next run's agent, which
// may run as the same uid.
func KillOrphans(uid uint32) int {
	killed := 0
	for round := 0; round < maxRounds; round++ {
		pids := childrenAs(os.Getpid(), uid)
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			if unix.Kill(pid, unix.SIGKILL) == nil {
				killed++
			}
		}
		for _, pid := range pids {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, 0, nil)
		}
	}
	return killed
}

// childrenAs lists the processes whose parent is ppid and whose real uid
// is uid, from /proc.
func childrenAs(ppid int, uid uint32) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, u, ok := parentAndUID(pid); ok && p == ppid && u == uid {
			out = append(out, pid)
		}
	}
	return out
}

// parentAndUID reads PPid and the real Uid of pid from /proc/pid/status.
func parentAndUID(pid int) (ppid int, uid uint32, ok bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	var seen int
	sc := bufio.NewScanner(f)
	for sc.Scan() && seen < 2 {
		k, v, _ := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		switch k {
		case "PPid":
			ppid, err = strconv.Atoi(fields[0])
			seen++
		case "Uid":
			var u uint64
			u, err = strconv.ParseUint(fields[0], 10, 32)
			uid = uint32(u)
			seen++
		}
		if err != nil {
			return 0, 0, false
		}
	}
	return ppid, uid, seen == 2
}
