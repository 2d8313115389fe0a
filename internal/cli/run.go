package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/runner"
)

// runSignals starts delivery of SIGINT, SIGTERM, SIGHUP and SIGQUIT for
// forwarding to the agent and returns the channel and a stop function.
// Caught, none of them ends fullsend before it released the poll lock
// (SIGHUP and SIGQUIT would otherwise end it at once). Tests replace it.
var runSignals = notifySignals

// notifySignals is runSignals. SIGPIPE is caught (and dropped) as well:
// a write to a stdout or stderr whose reader is gone (a local executor's
// poller killed with SIGKILL) then fails instead of killing the run,
// which goes on to wait for its agent and release its poll lock
// (docs/local.md).
func notifySignals() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	pipe := make(chan os.Signal, 1) // never read: a full channel drops the signal
	signal.Notify(pipe, syscall.SIGPIPE)
	return ch, func() { signal.Stop(ch); signal.Stop(pipe) }
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
		Example: `  fullsend run --harness triage --event-file events/triage-comment.json --poll-lock ''
  fullsend run --harness triage --event-file - -- ./agents/triage.sh --verbose < event.json`,
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
	fl.StringVar(&f.MetricsTextfile, "metrics-textfile", "", "write fullsend_run_isolation_total to this file in the Prometheus text format (default $FULLSEND_METRICS_TEXTFILE)")
	fl.BoolVar(&o.refreshOnly, "refresh-only", false, "verify and refresh the poll lock, then exit without starting the agent")
	completeHarness(app, cmd, "harness")
	return cmd
}

func (app *App) runRun(ctx context.Context, o *runOptions) error {
	req := runner.Request{Flags: o.flags, Command: o.command, ConfigDir: app.ConfigDir, Getenv: app.Getenv,
		Stdin: app.eventStdin(ctx, o.flags.EventFile == "-", "pass --event-file FILE"), Stdout: app.Stdout, Stderr: app.Stderr, Log: app.Log, Signals: runSignals,
		Tether: app.Executable, JiraFollowUps: jirapoll.RunFollowUps, GitHubStartCheck: ghadispatch.StartCheck}
	testHooks(&req, app.Getenv)
	if o.refreshOnly {
		return app.refreshLock(ctx, req, len(o.command) > 0)
	}
	out, err := runner.Execute(ctx, req)
	switch {
	case err != nil:
		return runExit(err)
	case out.TimedOut:
		return &ExitError{Code: out.ExitCode, Final: true, Err: fmt.Errorf("agent %q exceeded run.timeout %s", out.Harness.Name, out.Harness.Timeout)}
	case out.ExitCode != 0:
		return &ExitError{Code: out.ExitCode, Final: true, Err: fmt.Errorf("agent %q exited with code %d", out.Harness.Name, out.ExitCode)}
	}
	return nil
}

// refreshLock is --refresh-only: verify the lock and mark it running.
func (app *App) refreshLock(ctx context.Context, req runner.Request, command bool) error {
	if command {
		return UserError(errors.New("--refresh-only starts no agent: drop the command after --"))
	}
	lk, err := runner.Refresh(ctx, req)
	switch {
	case err != nil:
		return runExit(err)
	case lk == nil:
		app.Log.Info("no poll lock: nothing to refresh")
	default:
		app.Log.Info("poll lock verified and refreshed", "issue", lk.Issue, "property", lk.Property)
	}
	return nil
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
