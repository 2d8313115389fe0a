//go:build !linux

package sandbox

import "errors"

// Workspace is what the agent must be able to use (Linux only).
type Workspace struct{ Dir, Run, Records string }

// Lease is a workspace handed to the agent (Linux only).
type Lease struct {
	Home, Tmp string
	Kept      Kept
}

// Hand is never used where Supported is false.
func Hand(Workspace, Identity) (*Lease, error) {
	return nil, errors.New("sandbox: switching the agent's user is supported on Linux only")
}

// Return does nothing.
func (*Lease) Return() (Kept, error) { return Kept{}, nil }
