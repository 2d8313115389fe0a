package cli

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// Exit codes of a command ended by a signal: 128 + the signal number, as
// shells report it (docs/cli.md).
const (
	ExitInterrupted = 130 // SIGINT
	ExitTerminated  = 143 // SIGTERM
)

// Signal is the cause of a context cancelled by a signal; cmd/fullsend
// cancels the context of every command with it.
type Signal struct{ Signal os.Signal }

func (s Signal) Error() string {
	switch s.Signal {
	case syscall.SIGINT:
		return "interrupted (SIGINT)"
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	}
	return "stopped by signal " + s.Signal.String()
}

// Code is the conventional exit code for the signal: 128 + its number.
func (s Signal) Code() int {
	if n, ok := s.Signal.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return ExitInterrupted
}

// signalExit returns the exit code for err when a signal cancelled ctx:
// a command that failed after a signal ends with 128+signal, whatever the
// failure (an interrupted read, a cancelled request); codes a command
// chose itself (the agent's code in `fullsend run`, 3 for a lost lock)
// are kept, and a command that shut down gracefully (nil error, as
// `poll --watch` does) exits 0. ok is false without a signal.
func signalExit(ctx context.Context, err error) (code int, ok bool) {
	var sig Signal
	if err == nil || !errors.As(context.Cause(ctx), &sig) {
		return 0, false
	}
	var ee *ExitError
	if errors.As(err, &ee) && (ee.Final || ee.Code == ExitLostLock) {
		return ee.Code, true
	}
	return sig.Code(), true
}
