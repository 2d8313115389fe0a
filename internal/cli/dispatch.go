package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/dispatch"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// dispatchInputs are the input drivers `fullsend dispatch` reads one event with.

type dispatchOptions struct {
	inputDriver  string
	inputFile    string
	eventName    string
	outputDriver string
	repo         string
	pretty       prettyFlag
	indent       bool // resolved --pretty
}

func newDispatchCmd(app *App, runF func(context.Context, *dispatchOptions) error) *cobra.Command {
	cmd, o := command(&cobra.Command{
		Use:   "dispatch",
		Short: "Decide and dispatch the agent runs one event starts",
		Long: `Reads one event (a NormalizedEvent with --input-driver json, or a GitHub
Actions event with --input-driver gha-event, chosen automatically when
GITHUB_EVENT_PATH is set), runs it through the kill switch, the
authorization gate and every harness trigger, and hands the matching runs to
the output driver (json prints the plan).`,
		Example: `  fullsend dispatch --input-file events/triage-comment.json
  fullsend dispatch --input-file events/triage-comment.json --output-driver local
  GITHUB_TOKEN=... fullsend dispatch --input-driver gha-event --event-name issue_comment \
      --input-file events/github-issue-comment.json
  fullsend dispatch --output-driver gha-dispatch   # in a GitHub workflow: reads $GITHUB_EVENT_PATH`,
		Args: noArgs,
	}, runF, app.runDispatch)
	cmd.PreRun = func(c *cobra.Command, _ []string) {
		o.indent = o.pretty.resolve(c, app.Stdout)
	}
	addPrettyFlag(cmd, &o.pretty)
	f := cmd.Flags()
	f.StringVar(&o.inputDriver, "input-driver", "", english.Or(drivername.DispatchInputNames())+" (default: gha-event when GITHUB_EVENT_PATH is set, gitlab-event in a GitLab trigger pipeline, else json)")
	f.StringVar(&o.inputFile, "input-file", "", "event file, or - for stdin (default: stdin; $GITHUB_EVENT_PATH for gha-event, $TRIGGER_PAYLOAD for gitlab-event)")
	f.StringVar(&o.eventName, "event-name", "", "GitHub event name for gha-event (default $GITHUB_EVENT_NAME)")
	f.StringVar(&o.outputDriver, "output-driver", drivername.JSON, english.Or(drivername.OutputNames()))
	f.StringVar(&o.repo, "repo", "", "target repository (overrides config repo)")
	completeValues(cmd, "input-driver", drivername.DispatchInputNames()...)
	completeValues(cmd, "output-driver", drivername.OutputNames()...)
	return cmd
}

func (app *App) runDispatch(ctx context.Context, o *dispatchOptions) error {
	out := app.outputEnv()
	if o.indent && drivername.PrintsPlan(o.outputDriver) {
		out.Stdout = indentWriter{app.Stdout}
	}
	err := dispatch.Run(ctx, dispatch.Options{
		ConfigDir: app.ConfigDir, InputDriver: o.inputDriver, InputFile: o.inputFile, EventName: o.eventName,
		OutputDriver: o.outputDriver, Repo: o.repo, Output: out,
		Stdin: app.eventStdin(ctx, app.dispatchReadsStdin(o), "pass --input-file FILE"),
	})
	var ee *dispatch.EventError
	if errors.As(err, &ee) {
		return UserError(app.eventProblems(ee.Err))
	}
	return err
}

// dispatchReadsStdin reports whether the event comes from standard input:
// a NormalizedEvent with no --input-file, or --input-file -.
func (app *App) dispatchReadsStdin(o *dispatchOptions) bool {
	driver := o.inputDriver
	if driver == "" && app.Getenv("GITHUB_EVENT_PATH") == "" {
		driver = drivername.JSONIn
	}
	return o.inputFile == "-" || (o.inputFile == "" && driver == drivername.JSONIn)
}

// eventProblems prints the problems of an invalid event on stderr, one
// line each with the input's name, as `fullsend event validate` does, and
// returns a one-line summary; any other error is returned as it is. A
// multi-line error would otherwise be printed with the name on its first
// line only.
func (app *App) eventProblems(err error) error {
	var verr *event.ValidationError
	if !errors.As(err, &verr) || len(verr.Problems)+verr.Omitted < 2 {
		return err
	}
	prefix, ok := strings.CutSuffix(err.Error(), verr.Error())
	if !ok {
		return err
	}
	for _, p := range verr.Problems {
		fmt.Fprintf(app.Stderr, "%s%s\n", prefix, p)
	}
	if verr.Omitted > 0 {
		fmt.Fprintf(app.Stderr, "%s… and %d more %s\n", prefix, verr.Omitted, english.Noun(verr.Omitted, "problem"))
	}
	return fmt.Errorf("%sinvalid NormalizedEvent (%s)", prefix, english.Count(len(verr.Problems)+verr.Omitted, "problem"))
}
