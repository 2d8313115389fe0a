//go:build unix

package local

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a new process group and makes context
// cancellation send SIGTERM to the whole group (exec then sends SIGKILL to
// the child after WaitDelay).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}
