//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// cgroup is the agent's cgroup (v2): a directory below fullsend's own.
type cgroup struct {
	dir string
	fd  int // the directory, open, for CLONE_INTO_CGROUP
}

var cgroupSeq atomic.Int64

// cgroupBase locates fullsend's own cgroup v2 directory; tests replace it.
var cgroupBase = ownCgroup

// newCgroup creates the agent's cgroup, or says why there is none.
func newCgroup() (*cgroup, string) {
	base, err := cgroupBase()
	if err != nil {
		return nil, err.Error()
	}
	dir := filepath.Join(base, fmt.Sprintf("fullsend-agent-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Sprintf("cannot create a cgroup for the agent: %v", err)
	}
	cg := &cgroup{dir: dir, fd: -1}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		cg.remove()
		return nil, "the kernel has no cgroup.kill (Linux 5.14)"
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		cg.remove()
		return nil, fmt.Sprintf("cannot open the agent's cgroup: %v", err)
	}
	cg.fd = fd
	// Starting a process into it can still be refused (a seccomp filter
	// answering ENOSYS for clone3, a threaded cgroup): try with a program
	// that does not exist, so that the child is created there and fails
	// at once.
	_, err = syscall.ForkExec(filepath.Join(dir, "fullsend-probe"), nil, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}})
	if !errors.Is(err, syscall.ENOENT) {
		cg.remove()
		return nil, fmt.Sprintf("cannot start a process in the agent's cgroup: %v", err)
	}
	return cg, ""
}

// ownCgroup is the directory of this process's cgroup v2, from
// /proc/self/cgroup and the cgroup2 mount in /proc/self/mountinfo.
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("no cgroup: %v", err)
	}
	var rel string
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel = p
		}
	}
	if !strings.HasPrefix(rel, "/") {
		return "", errors.New("fullsend is in no cgroup v2")
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("no mount table: %v", err)
	}
	for _, line := range strings.Split(string(mi), "\n") {
		// id parent dev root mountpoint options… - fstype source options
		pre, post, ok := strings.Cut(line, " - ")
		f, p := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(p) < 1 || p[0] != "cgroup2" {
			continue
		}
		root, mnt := unescape(f[3]), unescape(f[4])
		if sub, ok := strings.CutPrefix(rel, root); ok && (root == "/" || sub == "" || sub[0] == '/') {
			return filepath.Join(mnt, sub), nil
		}
	}
	return "", errors.New("fullsend's cgroup v2 is not mounted here")
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// kill ends everything in the cgroup and returns how many processes were
// there outside process group pgid (the agent's, already killed).
func (cg *cgroup) kill(pgid int) int {
	n := 0
	for _, pid := range cg.procs() {
		if p, ok := readProc(pid); !ok || p.pgid != pgid {
			n++
		}
	}
	_ = os.WriteFile(filepath.Join(cg.dir, "cgroup.kill"), []byte("1"), 0)
	return n
}

// procs lists the processes in the cgroup.
func (cg *cgroup) procs() []int {
	b, _ := os.ReadFile(filepath.Join(cg.dir, "cgroup.procs"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// populated reports whether a process is still in the cgroup.
func (cg *cgroup) populated() bool {
	b, err := os.ReadFile(filepath.Join(cg.dir, "cgroup.events"))
	return err != nil || bytes.Contains(b, []byte("populated 1"))
}

func (cg *cgroup) remove() {
	if cg.fd >= 0 {
		unix.Close(cg.fd)
		cg.fd = -1
	}
	_ = unix.Rmdir(cg.dir)
}
