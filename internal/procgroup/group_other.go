//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
)

// Supported reports whether this platform has process groups.
const Supported = false

func newGroup(*exec.Cmd) error { return ErrUnsupported }

// Signal is never reached: Start fails on this platform.
func (g *Group) Signal(os.Signal) error { return ErrUnsupported }

// Kill is never reached: Start fails on this platform.
func (g *Group) Kill() (bool, error) { return false, ErrUnsupported }
