//go:build unix

package steer

import "syscall"

// guardFlags open an agent-owned file without following a link put in
// its place and without blocking on a FIFO.
const guardFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
