//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// Supported reports whether this platform can switch the agent's user.
const Supported = false

var errUnsupported = errors.New("sandbox: switching the agent's user is supported on Linux only")

// Starter is never used where Supported is false: Decide never plans
// ModeUser there.
func Starter(Identity) func(*exec.Cmd) error {
	return func(*exec.Cmd) error { return errUnsupported }
}

// Reaper is never used where Supported is false.
type Reaper struct{ NoCgroup string }

// NewReaper is never used where Supported is false.
func NewReaper(Identity) (*Reaper, error) {
	return &Reaper{NoCgroup: errUnsupported.Error()}, errUnsupported
}

// Start refuses to start anything.
func (*Reaper) Start(*exec.Cmd) error { return errUnsupported }

// Reap does nothing.
func (*Reaper) Reap(int) Reaped { return Reaped{} }
