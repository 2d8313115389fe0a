//go:build !unix

package local

import "os/exec"

// ownProcessGroup keeps exec's default on platforms without process
// groups: cancellation kills the child.
func ownProcessGroup(*exec.Cmd) {}
