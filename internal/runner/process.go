package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/fullsend-dev/fullsend/internal/procgroup"
	"github.com/fullsend-dev/fullsend/internal/sandbox"
)

// ExitTimeout is the exit code of a run whose agent exceeded run.timeout.
const ExitTimeout = 124

// DefaultGrace is the time between SIGTERM and SIGKILL.
const DefaultGrace = 10 * time.Second

// Process supervises one agent process. The agent runs in its own process
// group (package procgroup, Linux and macOS), so that signals reach the whole tree it starts and a terminal's
// Ctrl-C reaches it only through fullsend. When the agent ends, whatever
// is left in its group is killed.
type Process struct {
	Command []string // argv; Command[0] is looked up in fullsend's PATH
	Env     []string // the agent's complete environment
	Dir     string   // working directory; "" = fullsend's
	Stdout  io.Writer
	Stderr  io.Writer
	// Stdin is the agent's standard input (steer.stdin's pipe); nil: none.
	Stdin *os.File
	// Timeout ends the agent with SIGTERM (then SIGKILL after Grace) and
	// makes the exit code ExitTimeout; 0 means no timeout.
	Timeout time.Duration
	Grace   time.Duration // 0 = DefaultGrace
	// Signals received here are forwarded to the agent's process group;
	// the first one also starts the Grace period after which the group is
	// killed.
	Signals <-chan os.Signal
	Log     *slog.Logger
	// After returns a channel that receives once d has passed (nil:
	// time.After); it times run.timeout and Grace. Tests inject a clock.
	After func(d time.Duration) <-chan time.Time
	// As, when set, is the identity the agent runs as (package sandbox:
	// its own uid and gid, no supplementary groups, no_new_privs); nil runs
	// it as fullsend's user.
	As *sandbox.Identity
	// Tether is the fullsend binary to start as the agent's tether
	// (package tether: the agent's group dies with fullsend, even by
	// SIGKILL); "" starts none.
	Tether string
}

// Result is how the agent ended.
type Result struct {
	ExitCode int       // agent's code; 128+n when killed by signal n; ExitTimeout on timeout
	TimedOut bool      // run.timeout expired
	Signal   os.Signal // the first signal forwarded to the agent, if any
}

// StartError reports that the agent command could not be started.
type StartError struct {
	Command string
	Err     error
}

func (e *StartError) Error() string { return fmt.Sprintf("start agent %q: %v", e.Command, e.Err) }
func (e *StartError) Unwrap() error { return e.Err }

// Run starts the agent and waits for it. Cancelling ctx terminates the agent
// like a forwarded SIGTERM. The only error is a *StartError.
func (p Process) Run(ctx context.Context) (Result, error) {
	if len(p.Command) == 0 {
		return Result{}, &StartError{Err: errors.New("empty command")}
	}
	grace := p.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	after := p.After
	if after == nil {
		after = time.After
	}
	// The agent must not read our environment or memory, which hold the
	// tokens (docs/runner.md, Secrets).
	if err := hideFromSameUser(); err != nil {
		p.log().Warn("could not make fullsend non-dumpable; the agent may read its environment", "error", err.Error())
	}
	g, pipes, err := p.start(grace, after)
	if err != nil {
		return Result{}, err
	}
	var res Result
	var timeout <-chan time.Time
	if p.Timeout > 0 {
		timeout = after(p.Timeout)
	}
	terminating := false
	terminate := func(sig os.Signal) {
		terminating = true
		if err := g.Terminate(sig, grace); err != nil {
			p.log().Warn("signal agent", "signal", sig.String(), "error", err.Error())
		}
	}
	ctxDone := ctx.Done()
	for {
		select {
		case <-g.Done():
			ps, _ := g.Wait()
			res.ExitCode = procgroup.ExitCode(ps)
			if res.TimedOut {
				res.ExitCode = ExitTimeout
			}
			// Whatever the agent left running in its group goes with it:
			// the run (and the poll lock) ends here, and the key's next
			// run may start beside anything that outlived it.
			if found, _ := g.Kill(); found && !terminating {
				p.log().Warn("agent left processes running in its process group; killed them")
			}
			p.reapOrphans(pipes, g.Pid())
			pipes.tether.Release()
			pipes.Wait(grace, after)
			return res, nil
		case sig := <-p.Signals:
			if res.Signal == nil {
				res.Signal = sig
			}
			p.log().Info("forwarding signal to agent", "signal", sig.String())
			terminate(sig)
		case <-timeout:
			timeout = nil
			res.TimedOut = true
			p.log().Warn("agent exceeded run.timeout; terminating", "timeout", p.Timeout, "grace", grace)
			terminate(syscall.SIGTERM)
		case <-ctxDone:
			ctxDone = nil
			p.log().Info("run cancelled; terminating agent", "grace", grace)
			terminate(syscall.SIGTERM)
		}
	}
}

// start starts the agent in its process group, as p.As when set.
func (p Process) start(grace time.Duration, after func(time.Duration) <-chan time.Time) (*procgroup.Group, *jail, error) {
	cmd := exec.Command(p.Command[0], p.Command[1:]...)
	cmd.Env, cmd.Dir = p.Env, p.Dir
	cmd.Stdout, cmd.Stderr = agentOutput(p.Stdout), agentOutput(p.Stderr)
	if p.Stdin != nil {
		cmd.Stdin = p.Stdin
	}
	// A grandchild holding the output pipes open must not hang the run.
	cmd.WaitDelay = grace
	opts := procgroup.Options{After: after, OnKill: func() {
		p.log().Warn("agent still running after grace period; killing", "grace", grace)
	}}
	pipes, err := p.isolate(cmd, &opts)
	if err != nil {
		return nil, nil, &StartError{Command: p.Command[0], Err: err}
	}
	pipes.tether = p.startTether()
	g, err := procgroup.Start(cmd, opts)
	if err != nil {
		pipes.tether.Release()
		pipes.Close()
		return nil, nil, &StartError{Command: p.Command[0], Err: err}
	}
	p.hold(pipes.tether, g.Pid())
	pipes.Started()
	return g, pipes, nil
}

func (p Process) log() *slog.Logger {
	if p.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Log
}
