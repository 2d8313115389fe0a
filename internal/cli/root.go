// Package cli wires command-line flags to the packages that do the work.
// Each command lives in its own file, registers itself with register, takes
// its dependencies from App, and holds no business logic.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes (DESIGN.md section 5).
const (
	ExitOK       = 0
	ExitFailure  = 1
	ExitUsage    = 2 // usage, configuration or input error
	ExitLostLock = 3 // fullsend run: the poll lock was lost
)

// ExitError carries an exit code with an error.
type ExitError struct {
	Code int
	Err  error
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
}

var commands []func(*App) *cobra.Command

// register adds a top-level command constructor; called from init in each
// command's file.
func register(f func(*App) *cobra.Command) { commands = append(commands, f) }

// NewRoot builds the command tree for app.
func NewRoot(app *App) *cobra.Command {
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UserError(err) })
	for _, f := range commands {
		root.AddCommand(f(app))
	}
	addVersionFlag(root) // --version (version.go)
	markRunErrors(root)
	return root
}

// markRunErrors makes every error a command's RunE returns an *ExitError
// (exit 1 unless it already carries a code), so that Run can tell them
// from cobra's own usage errors (unknown command, wrong argument count),
// which are untyped: whatever a runtime error says, it never exits 2.
func markRunErrors(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			err := run(cmd, args)
			var ee *ExitError
			if err != nil && !errors.As(err, &ee) {
				return &ExitError{Code: ExitFailure, Err: err}
			}
			return err
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
	switch format {
	case "text":
		app.Log = slog.New(slog.NewTextHandler(app.Stderr, opts))
	case "json":
		app.Log = slog.New(slog.NewJSONHandler(app.Stderr, opts))
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
		app.Log = slog.New(slog.NewTextHandler(app.Stderr, nil))
	}
	root := NewRoot(app)
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
	fmt.Fprintf(app.Stderr, "fullsend: %v\n", err)
	return code
}
