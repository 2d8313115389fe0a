package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/runner"
)

// runSignals starts delivery of SIGINT and SIGTERM for forwarding to the
// agent and returns the channel and a stop function. Tests replace it.
var runSignals = notifySignals

func notifySignals() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}

// newRunCmd builds `fullsend run`: one agent run for one harness and one
// event (package runner does the work).
// runOptions are the flags and the agent command of `fullsend run`.
type runOptions struct {
	flags       runner.Flags
	refreshOnly bool
	command     []string // after --
}

func newRunCmd(app *App, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := &runOptions{}
	if runF == nil {
		runF = app.runRun
	}
	cmd := &cobra.Command{
		Use:   "run --harness NAME [--event-file F|-] [--poll-lock JSON] [--refresh-only] [-- COMMAND ARGS...]",
		Short: "Execute one agent run: verify and keep the poll lock, start the harness command, release the lock",
		Long: `Execute exactly one agent run for one harness and one event.

The event comes from --event-file (a path, or - for standard input), else
$FULLSEND_NORMALIZED_EVENT (JSON), else $FULLSEND_EVENT (base64 JSON). The
harness defaults to $FULLSEND_AGENT; the poll lock to $FULLSEND_POLL_LOCK or
$FULLSEND_POLL_LOCK_ID/_DRIVER/_PROPERTY. The agent command is the harness
run.command, or the command given after --.

Exit codes: the agent's own code; 124 when run.timeout expired; 2 for bad
input (the agent was not started); 3 when the poll lock was lost before the
agent started; 1 for other failures. See docs/runner.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.flags.PollLockSet = cmd.Flags().Changed("poll-lock")
			command, err := runCommandArgs(cmd, args)
			if err != nil {
				return err
			}
			o.command = command
			return runF(cmd.Context(), o)
		},
	}
	f := &o.flags
	fl := cmd.Flags()
	fl.StringVar(&f.Harness, "harness", "", "harness name (default $FULLSEND_AGENT)")
	fl.StringVar(&f.EventFile, "event-file", "", "NormalizedEvent JSON file, - for standard input (default $FULLSEND_NORMALIZED_EVENT, then base64 $FULLSEND_EVENT)")
	fl.StringVar(&f.PollLock, "poll-lock", "", `poll lock {"id","driver","property"}; "" for none (default $FULLSEND_POLL_LOCK)`)
	fl.BoolVar(&o.refreshOnly, "refresh-only", false, "verify and refresh the poll lock, then exit without starting the agent")
	return cmd
}

func (app *App) runRun(ctx context.Context, o *runOptions) error {
	if !o.refreshOnly {
		return runAgent(ctx, app, o.flags, o.command)
	}
	if len(o.command) > 0 {
		return UserError(errors.New("--refresh-only starts no agent: drop the command after --"))
	}
	return refreshLock(ctx, app, o.flags)
}

// runCommandArgs returns the agent command given after --; positional
// arguments before -- are an error.
func runCommandArgs(cmd *cobra.Command, args []string) ([]string, error) {
	dash := cmd.ArgsLenAtDash()
	if (dash < 0 && len(args) > 0) || dash > 0 {
		return nil, UserError(fmt.Errorf("unexpected argument %q: put the agent command after --", args[0]))
	}
	return args, nil
}

// runExit maps runner errors to exit codes.
func runExit(err error) error {
	switch {
	case err == nil:
		return nil
	case runner.IsLostLock(err):
		return &ExitError{Code: ExitLostLock, Err: err}
	case runner.IsInput(err):
		return UserError(err)
	}
	return err
}

func loadRunConfig(app *App) (*config.Config, error) {
	cfg, err := config.Load(app.ConfigDir, app.Getenv)
	if err != nil {
		return nil, UserError(err)
	}
	return cfg, nil
}

// refreshLock is --refresh-only: verify the lock and mark it running.
// Outside polling (no lock) it does nothing.
func refreshLock(ctx context.Context, app *App, f runner.Flags) error {
	pl, err := runner.ResolvePollLock(f, app.Getenv)
	if err != nil || pl == nil {
		if err == nil {
			app.Log.Info("no poll lock: nothing to refresh")
		}
		return runExit(err)
	}
	cfg, err := loadRunConfig(app)
	if err != nil {
		return err
	}
	lk, _, err := runner.LockerFor(cfg, pl, app.Getenv, runner.CIRun(app.Getenv, os.Getpid()), nil, app.Log)
	if err != nil {
		return runExit(err)
	}
	if err := runner.RefreshOnly(ctx, lk); err != nil {
		return runExit(err)
	}
	app.Log.Info("poll lock verified and refreshed", "issue", lk.Issue, "property", lk.Property)
	return nil
}

// runAgent resolves and checks every input before touching the lock, then
// hands the run to runner.Run and exits with the agent's code.
func runAgent(ctx context.Context, app *App, f runner.Flags, command []string) error {
	in, err := runner.Resolve(f, app.Getenv, app.Stdin)
	if err != nil {
		return runExit(err)
	}
	cfg, err := loadRunConfig(app)
	if err != nil {
		return err
	}
	h, err := harness.Find(cfg, in.Harness)
	if err != nil {
		return UserError(err)
	}
	if len(command) == 0 {
		command = h.Command
	}
	if len(command) == 0 {
		return UserError(fmt.Errorf("harness %q (%s) has no run.command and no command was given after --", h.Name, h.File))
	}
	ev, err := runner.DecodeEvent(in)
	if err != nil {
		return runExit(err)
	}
	spec := runner.Spec{Harness: h.Name, Command: command, Timeout: h.Timeout,
		Event: ev, Forge: cfg.Forge, PollLock: in.PollLock, EnvAllow: h.Env, Getenv: app.Getenv,
		Stdout: app.Stdout, Stderr: app.Stderr, Log: app.Log}
	if in.PollLock != nil {
		spec.Locker, spec.RefreshInterval, err = runner.LockerFor(cfg, in.PollLock, app.Getenv,
			runner.CIRun(app.Getenv, os.Getpid()), nil, app.Log)
		if err != nil {
			return runExit(err)
		}
	}
	if supersededOnGitLab(ctx, app) {
		// The newer pipeline of this scope does the work; a poll lock this
		// run holds must not outlive it.
		if spec.Locker != nil {
			runner.ReleaseLock(ctx, spec.Locker, app.Log)
		}
		return nil
	}
	sigs, stop := runSignals()
	defer stop()
	spec.Signals = sigs
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("run cancelled before the agent started: %w", err)
	}
	// Signals reach the agent through forwarding; the command context's
	// own cancellation on SIGINT/SIGTERM must not send a second one.
	res, err := runner.Run(context.WithoutCancel(ctx), spec)
	if err != nil {
		return runExit(err)
	}
	switch {
	case res.TimedOut:
		return &ExitError{Code: res.ExitCode, Err: fmt.Errorf("agent %q exceeded run.timeout %s", h.Name, h.Timeout)}
	case res.ExitCode != 0:
		return &ExitError{Code: res.ExitCode, Err: fmt.Errorf("agent %q exited with code %d", h.Name, res.ExitCode)}
	}
	return nil
}
