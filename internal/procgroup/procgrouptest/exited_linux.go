//go:build linux

package procgrouptest

import (
	"errors"
	"syscall"
	"time"
)

// sysPidfdOpen is pidfd_open(2), the same number on every architecture.
const sysPidfdOpen = 434

// ExitedWithin waits up to d for process pid, a child of ours or not, to
// exit (a zombie counts as exited) and reports whether it did: it waits on
// a pidfd, which becomes readable when the process exits, so it returns as
// soon as that happens.
func ExitedWithin(pid int, d time.Duration) (bool, error) {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno == syscall.ESRCH {
		return true, nil // already gone and reaped
	}
	if errno != 0 {
		return false, errno
	}
	defer syscall.Close(int(fd))
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return false, err
	}
	defer syscall.Close(ep)
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, int(fd), &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}); err != nil {
		return false, err
	}
	for {
		n, err := syscall.EpollWait(ep, make([]syscall.EpollEvent, 1), int(d.Milliseconds()))
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		return n > 0, err
	}
}
