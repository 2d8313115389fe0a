//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// Supported reports whether this platform can switch the agent's user.
const Supported = false

// Starter is never used where Supported is false: Decide never plans
// ModeUser there.
func Starter(Identity) func(*exec.Cmd) error {
	return func(*exec.Cmd) error {
		return errors.New("sandbox: switching the agent's user is supported on Linux only")
	}
}

// Subreaper does nothing where Supported is false.
func Subreaper() error { return nil }

// KillOrphans does nothing where Supported is false.
func KillOrphans(uint32) int { return 0 }
