//go:build linux

package runner

import "syscall"

// prctl options (linux/prctl.h).
const (
	prGetDumpable = 3
	prSetDumpable = 4
)

// hideFromSameUser makes this process non-dumpable: /proc/<pid>/environ,
// mem, maps and ptrace become closed to processes of the same user that
// lack CAP_SYS_PTRACE, such as the agent. The flag is per process and
// irreversible here; the agent, a new program, is dumpable as usual.
func hideFromSameUser() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		return errno
	}
	return nil
}

// dumpable reports the process's dumpable flag (PR_GET_DUMPABLE).
func dumpable() (int, error) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetDumpable, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
