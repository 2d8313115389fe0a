// Package procgroup supervises a child process in its own process group:
// it starts the child as the leader of a new group, signals the whole
// group, kills the group when a grace period after a termination signal
// runs out, and waits for the child. Both `fullsend run` (for its agent)
// and the local output driver (for each `fullsend run` child) use it.
//
// Supported platforms are Linux and macOS (every GOOS with the "unix" build
// tag); elsewhere Start returns ErrUnsupported, so fullsend still builds
// there but cannot run agents.
package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// ErrUnsupported is what Start returns on platforms without process
// groups.
var ErrUnsupported = errors.New("procgroup: running agents needs process groups, which " + runtime.GOOS +
	" lacks; fullsend runs agents on Linux and macOS")

// Options tune a Group.
type Options struct {
	// After returns a channel that receives once d has passed; nil means
	// time.After. Tests inject a clock here.
	After func(d time.Duration) <-chan time.Time
	// OnKill, if set, is called just before the group is killed because
	// a grace period ran out.
	OnKill func()
	// Start, if set, starts the prepared command instead of cmd.Start
	// (package sandbox starts the agent under its own identity).
	Start func(*exec.Cmd) error
}

// Group is a started child and its process group (whose id is the child's
// pid).
type Group struct {
	cmd  *exec.Cmd
	opts Options
	done chan struct{}
	err  error // cmd.Wait's result; set before done is closed
	arm  sync.Once
}

// Start starts cmd as the leader of a new process group and waits for it
// in the background. cmd must not have been started; its SysProcAttr keeps
// its other settings and gets Setpgid.
func Start(cmd *exec.Cmd, o Options) (*Group, error) {
	if err := newGroup(cmd); err != nil {
		return nil, err
	}
	start := o.Start
	if start == nil {
		start = (*exec.Cmd).Start
	}
	if err := start(cmd); err != nil {
		return nil, err
	}
	if o.After == nil {
		o.After = time.After
	}
	g := &Group{cmd: cmd, opts: o, done: make(chan struct{})}
	go func() {
		g.err = cmd.Wait()
		close(g.done)
	}()
	return g, nil
}

// Pid is the child's process id, which is also the group's id.
func (g *Group) Pid() int { return g.cmd.Process.Pid }

// Done is closed when the child has exited and its output is copied.
func (g *Group) Done() <-chan struct{} { return g.done }

// Wait waits for the child and returns exec.Cmd.Wait's error and the
// child's state.
func (g *Group) Wait() (*os.ProcessState, error) {
	<-g.done
	return g.cmd.ProcessState, g.err
}

// Terminate sends sig to the group and, on its first call, arms the kill:
// if the child is still running grace later, OnKill is called and the
// group gets SIGKILL. Later calls only forward their signal.
func (g *Group) Terminate(sig os.Signal, grace time.Duration) error {
	err := g.Signal(sig)
	g.arm.Do(func() {
		expired := g.opts.After(grace)
		go func() {
			select {
			case <-g.done:
			case <-expired:
				if g.opts.OnKill != nil {
					g.opts.OnKill()
				}
				_, _ = g.Kill()
			}
		}()
	})
	return err
}

// ExitCode maps a finished child to a shell-style exit code: its own code,
// 128+n when signal n killed it, 1 when it has no state.
func ExitCode(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if c := ps.ExitCode(); c >= 0 {
		return c
	}
	return 1
}
