//go:build unix

// Package procgrouptest helps tests whose test binary plays a child
// process (an agent, a `fullsend run`) that must stay alive until it is
// signalled.
package procgrouptest

import (
	"os"
	"syscall"
)

// Hang blocks the calling thread in a read of a pipe nobody writes to,
// without sleeping and without tripping Go's deadlock detector, until a
// signal ends the process. It exits 94 should the read ever return.
func Hang() {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		os.Exit(93)
	}
	_, _ = syscall.Read(p[0], make([]byte, 1))
	os.Exit(94)
}
