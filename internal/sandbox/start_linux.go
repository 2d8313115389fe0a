//go:build linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// Supported reports whether this platform can switch the agent's user.
const Supported = true

// Starter returns the function that starts cmd as id: cmd's
// SysProcAttr gets the credential (uid, gid and an empty supplementary
// group list, so setgroups(0) runs in the child), and cmd is started from
// an OS thread that has set no_new_privs, which the child inherits and
// keeps across exec: neither setuid programs (sudo) nor file
// capabilities can raise it. Switching from root to a non-zero uid clears
// the permitted, effective and ambient capabilities; the agent starts
// with none. The thread is never handed back to the Go scheduler (its
// goroutine ends locked, so the runtime ends the thread, or parks it for
// good when it is the main thread), so no_new_privs never reaches
// fullsend's own work.
func Starter(id Identity) func(*exec.Cmd) error {
	return func(cmd *exec.Cmd) error {
		if err := notRoot(id); err != nil {
			return err
		}
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: id.UID, Gid: id.GID, Groups: []uint32{}}
		done := make(chan error, 1)
		go func() {
			// Deliberately never unlocked: the thread exits with this
			// goroutine, taking its no_new_privs flag with it.
			runtime.LockOSThread()
			if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
				done <- fmt.Errorf("set no_new_privs: %w", err)
				return
			}
			done <- cmd.Start()
		}()
		return <-done
	}
}
