package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/drivers"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/input"
	"github.com/fullsend-dev/fullsend/internal/input/jsonin"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/outputs"
)

type dispatchOptions struct {
	inputDriver  string
	inputFile    string
	eventName    string
	outputDriver string
	repo         string
}

func newDispatchCmd(app *App, runF func(context.Context, *dispatchOptions) error) *cobra.Command {
	o := &dispatchOptions{}
	if runF == nil {
		runF = app.runDispatch
	}
	cmd := &cobra.Command{
		Use:   "dispatch",
		Short: "Decide and dispatch the agent runs one event starts",
		Long: `Reads one event (a NormalizedEvent with --input-driver json, or a GitHub
Actions event with --input-driver gha-event, chosen automatically when
GITHUB_EVENT_PATH is set), runs it through the kill switch, the
authorization gate and every harness trigger, and hands the matching runs to
the output driver (json prints the plan).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.inputDriver, "input-driver", "", "json or gha-event (default: gha-event when GITHUB_EVENT_PATH is set, else json)")
	f.StringVar(&o.inputFile, "input-file", "", "event file, or - for stdin (default: stdin; $GITHUB_EVENT_PATH for gha-event)")
	f.StringVar(&o.eventName, "event-name", "", "GitHub event name for gha-event (default $GITHUB_EVENT_NAME)")
	f.StringVar(&o.outputDriver, "output-driver", drivers.JSON, strings.Join(drivers.OutputNames(), ", "))
	f.StringVar(&o.repo, "repo", "", "target repository (overrides config repo)")
	return cmd
}

func (app *App) runDispatch(ctx context.Context, o *dispatchOptions) error {
	cfg, reg, err := harness.LoadDir(app.ConfigDir, app.Getenv)
	if err != nil {
		return UserError(err)
	}
	if o.repo != "" {
		if err := config.CheckRepo(o.repo); err != nil {
			return UserError(fmt.Errorf("--repo: %w", err))
		}
		cfg.Repo, cfg.RepoSource = o.repo, "flag"
	}
	in, err := app.newInput(o, cfg)
	if err != nil {
		return err
	}
	ev, err := in.Read(ctx)
	if err != nil {
		return UserError(app.eventProblems(err))
	}
	out, err := outputs.New(o.outputDriver, cfg, app.outputEnv())
	if err != nil {
		return err
	}
	opts := core.Options{Config: cfg, Harnesses: reg, Log: app.Log}
	if d, _ := drivers.LookupOutput(o.outputDriver); d.OneShotBreaker() {
		opts.Breaker = core.NewBreaker(cfg.Limits.RunsPerScopePerHour)
	}
	eng, err := core.New(opts)
	if err != nil {
		return UserError(err)
	}
	d := eng.Decide(ev)
	eng.LogDecision(d)
	runs, _ := eng.Admit(d.Runs)
	failed := 0
	for _, r := range out.Dispatch(ctx, runs) {
		if r.Err != nil {
			failed++
			app.Log.Error("dispatch failed", "harness", r.Run.Harness, "serialization_key", string(r.Run.Key), "error", r.Err.Error())
			continue
		}
		app.Log.Info("dispatched", "harness", r.Run.Harness, "serialization_key", string(r.Run.Key), "driver", out.Name(), "run", refText(r))
	}
	if err := outputs.Close(ctx, out); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d dispatches failed", failed, len(runs))
	}
	return nil
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
		fmt.Fprintf(app.Stderr, "%s… and %d more problems\n", prefix, verr.Omitted)
	}
	return fmt.Errorf("%sinvalid NormalizedEvent (%d problems)", prefix, len(verr.Problems)+verr.Omitted)
}

func refText(r output.Result) string {
	if r.Ref == nil {
		return ""
	}
	if r.Ref.URL != "" {
		return r.Ref.URL
	}
	return r.Ref.ID
}

// newInput picks the dispatch input driver.
func (app *App) newInput(o *dispatchOptions, cfg *config.Config) (input.Driver, error) {
	name := o.inputDriver
	if name == "" {
		name = drivers.JSONIn
		if app.Getenv("GITHUB_EVENT_PATH") != "" {
			name = drivers.GHAEvent
		}
	}
	switch name {
	case drivers.JSONIn:
		if o.eventName != "" {
			return nil, UserError(fmt.Errorf("--event-name is for --input-driver gha-event, but the input driver is json (a NormalizedEvent); pass --input-driver gha-event to read a GitHub Actions event"))
		}
		return jsonin.New(o.inputFile, app.Stdin), nil
	case drivers.GHAEvent:
		return app.newGHAEventInput(o, cfg)
	}
	return nil, UserError(fmt.Errorf("--input-driver %q: want json or gha-event", name))
}
