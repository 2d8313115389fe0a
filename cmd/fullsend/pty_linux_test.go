package main

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair through /dev/ptmx: the controlling
// side and the terminal a child gets as its standard input.
func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	var n uint32
	if err := ioctl(ptm, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		ptm.Close()
		t.Skipf("unlockpt: %v", err)
	}
	if err := ioctl(ptm, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		ptm.Close()
		t.Skipf("ptsname: %v", err)
	}
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ptm.Close()
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { pts.Close(); ptm.Close() })
	return ptm, pts
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

// TestDispatchOnTerminal runs `fullsend dispatch` with a terminal as its
// standard input and no --input-file: it says what it waits for, and
// Ctrl-C (SIGINT) ends it with 130.
func TestDispatchOnTerminal(t *testing.T) {
	_, pts := openPTY(t)
	cmd := exec.Command(binary, "--config-dir", configDir(t), "dispatch")
	signalWhen(t, cmd, pts, "reading a NormalizedEvent from standard input; end with Ctrl-D, or pass --input-file FILE", syscall.SIGINT, 130)
}
