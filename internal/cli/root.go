// Package cli maps command-line flags to the options of the packages that
// do the work. Each command lives in its own file as a constructor that
// takes App (streams, environment, logging) and a runF seam: the command
// parses its flags into an options struct and hands it to runF, which is
// the real work unless a test captures it. Commands are registered in one
// place, commandList; no command holds decision logic.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/redact"
)

// Exit codes (the table is docs/cli.md; 130 and 143 are in signal.go).
const (
	ExitOK       = 0
	ExitFailure  = 1 // a runtime failure: a service down, a failed dispatch
	ExitUsage    = 2 // usage, configuration, input or refused credentials
	ExitLostLock = 3 // fullsend run: the poll lock was lost
)

// ExitError carries an exit code with an error.
type ExitError struct {
	Code int
	Err  error
	// Final marks a code that is the command's own answer (the agent's
	// exit code in `fullsend run`): a signal does not replace it.
	Final bool
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UserError marks err as the user's input error (exit 2).
func UserError(err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: ExitUsage, Err: err}
}

// App holds what every command needs: streams, environment and logging.
// Tests construct one with buffers and a fake environment.
type App struct {
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
	Getenv    func(string) string
	ConfigDir string
	LogFormat string
	LogLevel  string
	Log       *slog.Logger
	// IsTerminal reports whether stderr is a terminal (text logs by default).
	IsTerminal bool
	// StdinIsTerminal reports whether standard input is a terminal: a
	// command waiting there for an event then says what it expects.
	StdinIsTerminal bool
	// Executable is the fullsend binary itself (main sets it), which
	// `fullsend run` starts as its agent's tether; "" starts none (tests
	// running commands in-process).
	Executable string

	logFormat string // the format in effect: LogFormat, else the terminal's default
}

// commandList is every top-level command, built for app with its real
// work (a nil runF).
func commandList(app *App) []*cobra.Command {
	return []*cobra.Command{
		newDemoCmd(app, nil),
		newDispatchCmd(app, nil),
		newEntityCmd(app, nil),
		newEventCmd(app, nil),
		newPollCmd(app, nil),
		newRunCmd(app, nil),
		newSimCmd(app, nil),
		newStatusCmd(app, nil),
		newSteerCmd(app, nil),
		newTetherCmd(app, nil),
		newValidateCmd(app, nil),
		newVersionCmd(app, nil),
		newWorkflowsCmd(app),
	}
}

// NewRoot builds the command tree for app.
func NewRoot(app *App) *cobra.Command { return newRoot(app, commandList(app)...) }

// newRoot builds the root command with the given subcommands.
func newRoot(app *App, cmds ...*cobra.Command) *cobra.Command {
	root := &cobra.Command{
		Use:           "fullsend",
		Short:         "Turn activity on Jira issues, GitHub issues/PRs and GitLab MRs into serialized, coalesced agent runs",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return app.setupLogging()
		},
	}
	root.SetIn(app.Stdin)
	root.SetOut(app.Stdout)
	root.SetErr(app.Stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&app.ConfigDir, "config-dir", ".fullsend", "directory holding config.yaml and harness files")
	pf.StringVar(&app.LogFormat, "log-format", "", "log format: text or json (default: text on a terminal, json otherwise)")
	pf.StringVar(&app.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	root.SetFlagErrorFunc(flagError)
	registerRootCompletions(root)
	root.AddCommand(cmds...)
	addCompletionCmd(root)
	addVersionFlag(root) // --version (version.go)
	markRunErrors(root)
	return root
}

// noArgs is the Args of every command that takes no positional argument:
// a command with subcommands says the word is not one of them (cobra's
// "unknown command"), any other says it accepts no arguments.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 || cmd.HasSubCommands() {
		return cobra.NoArgs(cmd, args)
	}
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	return fmt.Errorf("%s accepts no arguments (got %q); see %s --help", name, strings.Join(args, " "), cmd.CommandPath())
}

// command returns c with fresh options for its flags to fill, and its RunE
// running runF with them, or def, the command's own work, when runF is nil
// (tests pass theirs).
func command[O any](c *cobra.Command, runF, def func(context.Context, *O) error) (*cobra.Command, *O) {
	o := new(O)
	if runF == nil {
		runF = def
	}
	c.RunE = func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) }
	return c, o
}

// markRunErrors makes every error a command's RunE returns an *ExitError
// (exit 2 for the user's input, config.IsInvalid; else 1 unless it
// already carries a code), so that Run can tell them from cobra's own
// usage errors (unknown command, wrong argument count), which are
// untyped: whatever a runtime error says, it never exits 2.
func markRunErrors(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			err := run(cmd, args)
			var ee *ExitError
			switch {
			case err == nil || errors.As(err, &ee):
				return err
			case config.IsInvalid(err):
				return &ExitError{Code: ExitUsage, Err: err}
			}
			return &ExitError{Code: ExitFailure, Err: err}
		}
	}
	for _, sub := range c.Commands() {
		markRunErrors(sub)
	}
}

func (app *App) setupLogging() error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(app.LogLevel)); err != nil {
		return UserError(fmt.Errorf("--log-level %q: want debug, info, warn or error", app.LogLevel))
	}
	opts := &slog.HandlerOptions{Level: level}
	format := app.LogFormat
	if format == "" {
		format = "json"
		if app.IsTerminal {
			format = "text"
		}
	}
	app.logFormat = format
	switch format {
	case "text":
		app.Log = slog.New(redact.Handler(slog.NewTextHandler(app.Stderr, opts), redact.Global()))
	case "json":
		jsonOpts := &slog.HandlerOptions{Level: level, ReplaceAttr: durationsInMS}
		app.Log = slog.New(redact.Handler(slog.NewJSONHandler(app.Stderr, jsonOpts), redact.Global()))
	default:
		return UserError(fmt.Errorf("--log-format %q: want text or json", app.LogFormat))
	}
	return nil
}

// Run executes args and returns the process exit code. Errors are printed
// once to stderr as "fullsend: message".
func Run(ctx context.Context, app *App, args []string) int {
	if app.Getenv == nil {
		app.Getenv = os.Getenv
	}
	if app.Log == nil {
		app.Log = slog.New(redact.Handler(slog.NewTextHandler(app.Stderr, nil), redact.Global()))
	}
	return execute(ctx, app, NewRoot(app), args)
}

// execute runs root with args and maps its error to an exit code.
func execute(ctx context.Context, app *App, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	// Errors from a command's RunE and from flag parsing are *ExitError
	// (markRunErrors, SetFlagErrorFunc); anything else is cobra rejecting
	// the command line (unknown command, wrong argument count).
	code := ExitUsage
	var ee *ExitError
	if errors.As(err, &ee) {
		code = ee.Code
	}
	if c, ok := signalExit(ctx, err); ok {
		code = c
	}
	fmt.Fprintf(app.Stderr, "fullsend: %s\n", redact.String(err.Error()))
	return code
}
