//go:build unix

package procgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// Supported reports whether this platform has process groups.
const Supported = true

func newGroup(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, 0
	return nil
}

// Signal sends sig to every process in the group. A group with no process
// left is not an error.
func (g *Group) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("procgroup: signal %v is not a syscall.Signal", sig)
	}
	if err := syscall.Kill(-g.Pid(), s); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d with %v: %w", g.Pid(), s, err)
	}
	return nil
}

// Kill sends SIGKILL to the group and reports whether any process was
// still in it (after the child has exited: whether it left some behind).
func (g *Group) Kill() (found bool, err error) {
	err = syscall.Kill(-g.Pid(), syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("kill process group %d: %w", g.Pid(), err)
	}
	return true, nil
}
