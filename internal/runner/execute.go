package runner

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/sandbox"
)

// Request is what `fullsend run` was asked to do, with its environment.
type Request struct {
	Flags     Flags
	Command   []string // after --; empty means the harness run.command
	ConfigDir string
	Getenv    func(string) string
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
	Log       *slog.Logger
	// Signals starts the delivery of the signals forwarded to the agent
	// and returns their channel and a stop function.
	Signals func() (<-chan os.Signal, func())
	// SteerTicks, when set, drives steering's discovery instead of its
	// cadence, and SteerKill stops it at a kill point (tests).
	SteerTicks <-chan time.Time
	SteerKill  func(point string) bool
	// Tether is the fullsend binary started as the agent's tether (the
	// agent's group dies with this process, even by SIGKILL: package
	// tether); "" starts none (tests running the runner in-process).
	Tether string
	// JiraFollowUps builds the reader of a Jira issue's follow-ups for a
	// run that steers (the command wires jira-poll's: the runner maps
	// Jira comments as a poll cycle does); nil: Jira runs do not steer.
	JiraFollowUps func(JiraIssue) (FollowUpReader, error)
	// GitHubStartCheck is the start-up check of a run inside GitHub
	// Actions (survivor.go; the command wires gha-dispatch's,
	// ghadispatch.StartCheck): yield when another run of the scope does
	// the work, msg saying which. nil: GitHub runs are not checked.
	GitHubStartCheck func(ctx context.Context, getenv func(string) string, log *slog.Logger) (yield bool, msg string, err error)
}

// Outcome is how an executed run ended.
type Outcome struct {
	Result
	Harness *harness.Harness // nil when the run was skipped
	// Skipped: another run of the scope does the work (survivor.go), or
	// the run's follow-up was delivered into the run before it (steering).
	Skipped bool
}

// Execute resolves and checks every input before touching the lock, then
// runs the agent (Run). Bad input is an *InputError or config.Invalid; a
// lost lock a *LostLockError.
func Execute(ctx context.Context, r Request) (Outcome, error) {
	in, err := Resolve(r.Flags, r.Getenv, r.Stdin)
	if err != nil {
		return Outcome{}, err
	}
	cfg, err := config.Load(r.ConfigDir, r.Getenv)
	if err != nil {
		return Outcome{}, err
	}
	h, err := harness.Find(cfg, in.Harness)
	if err != nil {
		return Outcome{}, config.Invalid(err)
	}
	command := r.Command
	if len(command) == 0 {
		command = h.Command
	}
	if len(command) == 0 {
		return Outcome{}, inputErr("harness %q (%s) has no run.command and no command was given after --", h.Name, h.File)
	}
	ev, err := DecodeEvent(in)
	if err != nil {
		return Outcome{}, err
	}
	en, err := DecodeEntity(in, ev)
	if err != nil {
		return Outcome{}, err
	}
	sb, err := sandbox.Decide(h.Isolation, h.User, os.Geteuid(), r.Getenv, nil)
	if err != nil {
		return Outcome{}, inputErr("harness %q (%s): %v", h.Name, h.File, err)
	}
	set := runSettings(h, ev, en, r.Log)
	spec := Spec{Harness: h.Name, Command: command, Timeout: set.Timeout, Sandbox: sb,
		Event: ev, Entity: en, Forge: cfg.Forge, PollLock: in.PollLock, EnvAllow: set.Env, Getenv: r.Getenv,
		Stdout: r.Stdout, Stderr: r.Stderr, Log: r.Log, Tether: r.Tether}
	if in.PollLock != nil {
		spec.Locker, spec.RefreshInterval, err = LockerFor(cfg, in.PollLock, r.Getenv, CIRun(r.Getenv, os.Getpid()), nil, r.Log)
		if err != nil {
			return Outcome{}, err
		}
	}
	if err := reportIsolation(r, sb.Mode); err != nil {
		return Outcome{}, err
	}
	if redundant(ctx, r) {
		// Another run of this scope does the work; a poll lock this run
		// holds must not outlive it.
		if spec.Locker != nil {
			ReleaseLock(ctx, spec.Locker, r.Log)
		}
		return Outcome{Harness: h, Skipped: true}, nil
	}
	if sc := steerStart(ctx, r, cfg, h, ev, &spec); sc.Skip {
		r.Log.Info(sc.Msg, "harness", h.Name)
		if spec.Locker != nil {
			ReleaseLock(ctx, spec.Locker, r.Log)
		}
		return Outcome{Harness: h, Skipped: true}, nil
	} else if sc.Spec != nil {
		sc.Spec.Ticks, sc.Spec.Kill = r.SteerTicks, r.SteerKill
		spec.Steer = sc.Spec
	}
	sigs, stop := r.Signals()
	defer stop()
	spec.Signals = sigs
	if err := ctx.Err(); err != nil {
		return Outcome{}, fmt.Errorf("run cancelled before the agent started: %w", err)
	}
	// Signals reach the agent through forwarding; the command context's
	// own cancellation on SIGINT/SIGTERM must not send a second one.
	res, err := Run(context.WithoutCancel(ctx), spec)
	return Outcome{Result: res, Harness: h}, err
}

// Refresh is `fullsend run --refresh-only`: verify the poll lock and mark
// it running; it returns the Locker it used. Outside polling (no lock)
// it does nothing and returns a nil Locker.
func Refresh(ctx context.Context, r Request) (*Locker, error) {
	pl, err := ResolvePollLock(r.Flags, r.Getenv)
	if err != nil || pl == nil {
		return nil, err
	}
	cfg, err := config.Load(r.ConfigDir, r.Getenv)
	if err != nil {
		return nil, err
	}
	lk, _, err := LockerFor(cfg, pl, r.Getenv, CIRun(r.Getenv, os.Getpid()), nil, r.Log)
	if err != nil {
		return nil, err
	}
	return lk, RefreshOnly(ctx, lk)
}
