// Package runner is the engine of `fullsend run`: it executes exactly one
// agent run for one harness and one event (see ARCHITECTURE.md).
//
// It resolves the run's inputs (flags or the environment a CI workflow
// provides), verifies and maintains the poll lock when the run came from
// polling, hands the work-item context to the agent through environment
// variables, supervises the agent process (output streaming, signal
// forwarding, timeout) and releases the lock at teardown. It never polls and
// never starts another run.
//
// The files: the inputs, an entity-source harness's entity checked
// against the event (inputs.go, setup.go); run.timeout and run.env with
// the harness's overlays applied (overlay.go); the lock's takeover,
// refresh and release (lock.go), the agent's environment, with
// $FULLSEND_ATTRIBUTION from the claimed lock (env.go); the success
// receipt at teardown (receipt.go); the GitLab start-up check and the
// agent's process (execute.go, process*.go); the isolation report
// (report.go).
//
// Errors that are the user's input are *InputError (exit 2); a poll lock that
// is no longer ours before the agent starts is *LostLockError (exit 3).
package runner

import (
	"errors"
	"fmt"
)

// InputError marks a problem with the run's input: a missing or disabled
// harness, a harness without a command, an unreadable or invalid event, a
// malformed poll-lock reference or a corrupt lock property. The agent was
// not started and the lock was not modified. The CLI maps it to exit 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// inputErr wraps a formatted message as an *InputError.
func inputErr(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// IsInput reports whether err is (or wraps) an *InputError.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// LostLockError reports that the poll lock no longer belongs to this run
// (gone, stale, or held by another id) when it was verified before starting
// the agent. The agent was not started and the lock was not modified. The
// CLI maps it to exit 3.
type LostLockError struct {
	Issue    string // issue key holding the lock
	Property string // lock property key
	Reason   string // why the lock is not ours
}

func (e *LostLockError) Error() string {
	return fmt.Sprintf("lost poll lock %s on %s: %s", e.Property, e.Issue, e.Reason)
}

// IsLostLock reports whether err is (or wraps) a *LostLockError.
func IsLostLock(err error) bool {
	var le *LostLockError
	return errors.As(err, &le)
}
