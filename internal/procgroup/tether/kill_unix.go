//go:build unix

package tether

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// ReadyWithin bounds how long Start waits for the tether to be ready.
const ReadyWithin = 10 * time.Second

// Start starts exe (the fullsend binary) as a tether whose standard
// output and error are stdout and stderr (nil: none), and waits until it
// is ready (deaf to signals, reading its input): at most ReadyWithin.
func Start(exe string, stdout, stderr *os.File) (*Tether, error) {
	ours, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, Command)
	cmd.Env = []string{}
	cmd.Stdin = theirs
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if stderr != nil {
		cmd.Stderr = stderr
	}
	// Its own group: a terminal's Ctrl-C, or the signals a run forwards
	// to its agent's group, never reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	_ = theirs.Close()
	if err != nil {
		_ = ours.Close()
		return nil, fmt.Errorf("tether: start %s: %w", exe, err)
	}
	t := &Tether{w: ours, cmd: cmd}
	_ = ours.SetReadDeadline(time.Now().Add(ReadyWithin))
	line, err := bufio.NewReader(ours).ReadString('\n')
	if err != nil || line != readyLine {
		_ = cmd.Process.Kill()
		t.Release()
		return nil, fmt.Errorf("tether: %s did not get ready (%q, %v)", exe, line, err)
	}
	return t, nil
}

// socketPair is a connected pair of Unix stream sockets, both closed on
// exec (the tether gets its end as its standard input), ours pollable.
func socketPair() (ours, theirs *os.File, err error) {
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("tether: socketpair: %w", err)
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		_, _ = syscall.Close(fds[0]), syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("tether: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "tether"), os.NewFile(uintptr(fds[1]), "tether-peer"), nil
}

// KillGroup sends SIGKILL to process group pgid; a group with no process
// left is not an error.
func KillGroup(pgid int) error {
	if pgid < 2 {
		return errors.New("tether: refusing to kill group < 2")
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// IgnoreSignals makes the tether process deaf to the signals that end a
// program by default and that a terminal, a CI runner cancelling its job
// or the run's forwarding may send: only the end of its input ends it.
func IgnoreSignals() {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE,
		syscall.SIGUSR1, syscall.SIGUSR2)
}
