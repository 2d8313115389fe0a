// Package dispatch runs `fullsend dispatch`: one event, read by an input
// driver, through the decision core to an output driver. It builds both
// drivers and the engine from the configuration and the options; the
// command line only maps its flags to Options.
package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/input"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/input/jsonin"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/outputs"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Options are what `fullsend dispatch` was asked to do.
type Options struct {
	ConfigDir    string
	InputDriver  string // json, gha-event or gitlab-event; "" picks gha-event when $GITHUB_EVENT_PATH is set, gitlab-event in a GitLab trigger pipeline, else json
	InputFile    string // event file, "-" or "" for Stdin ($GITHUB_EVENT_PATH for gha-event, $TRIGGER_PAYLOAD for gitlab-event)
	EventName    string // gha-event only; default $GITHUB_EVENT_NAME
	OutputDriver string
	Repo         string // overrides the config repo
	Stdin        io.Reader
	Output       output.Env // Getenv, streams and Log for every driver
	// NewResolver builds the entity resolver of a source system when an
	// enabled harness declares it among its entity sources; nil is
	// resolvers.New (tests inject fakes).
	NewResolver func(system string, cfg *config.Config, getenv func(string) string) (entity.Resolver, error)
}

// EventError is an event the input driver could not read or that is not
// a valid NormalizedEvent: the user's input.
type EventError struct{ Err error }

func (e *EventError) Error() string { return e.Err.Error() }
func (e *EventError) Unwrap() error { return e.Err }

// Run reads one event, decides the runs it starts and dispatches them.
// The user's errors (configuration, options, the event) are
// config.Invalid; an unreadable event is also an *EventError.
func Run(ctx context.Context, o Options) error {
	log := o.Output.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg, reg, err := harness.LoadDir(o.ConfigDir, o.Output.Getenv)
	if err != nil {
		return err
	}
	if o.Repo != "" {
		if err := config.CheckRepo(o.Repo); err != nil {
			return config.Invalid(fmt.Errorf("--repo: %w", err))
		}
		cfg.Repo, cfg.RepoSource = o.Repo, "flag"
	}
	in, err := newInput(o, cfg, log)
	if err != nil {
		return err
	}
	ev, err := in.Read(ctx)
	if errors.Is(err, input.ErrUnavailable) {
		return err
	}
	if err != nil {
		return config.Invalid(&EventError{Err: err})
	}
	out, err := outputs.New(o.OutputDriver, cfg, o.Output)
	if err != nil {
		return err
	}
	opts := core.Options{Config: cfg, Harnesses: reg, Log: log}
	if d, _ := drivername.LookupOutput(o.OutputDriver); d.OneShotBreaker() {
		opts.Breaker = core.NewBreaker(cfg.Limits.RunsPerScopePerHour)
	}
	eng, err := core.New(opts)
	if err != nil {
		return config.Invalid(err)
	}
	d := eng.DecideWith(ev, resolve(ctx, o, cfg, eng, ev, log))
	eng.LogDecision(d)
	for _, dn := range d.EntityDenied {
		log.Warn("entity evaluation denied: the harness starts no run for this event", "harness", dn.Harness, "reason", dn.Reason, "detail", dn.Detail)
	}
	runs, _ := eng.Admit(d.Runs)
	keyRuns(in, runs)
	started, failed, refused := send(ctx, out, runs, log)
	notify(ctx, o, reg, in, d, started, log)
	if err := outputs.Close(ctx, out); err != nil {
		return err
	}
	switch {
	case refused != nil:
		// Refused credentials are the operator's configuration (exit 2).
		return config.Invalid(refused)
	case failed > 0:
		return errors.Join(fmt.Errorf("%d of %d dispatches failed", failed, len(runs)), triggerErrors(d.Errors))
	}
	return triggerErrors(d.Errors)
}

// triggerErrors is the error of the harnesses whose trigger could not
// decide the event (its cost limit stopped it), or nil: the command fails
// (exit 1) rather than report the event as matching nothing. The runs of
// the other harnesses were dispatched.
func triggerErrors(errs []core.HarnessError) error {
	if len(errs) == 0 {
		return nil
	}
	out := make([]error, 0, len(errs)+1)
	out = append(out, fmt.Errorf("%d trigger(s) could not decide the event (the other harnesses were handled)", len(errs)))
	for _, he := range errs {
		out = append(out, he)
	}
	return errors.Join(out...)
}

// send dispatches runs, logs each outcome and returns the runs started,
// how many failed and the first failure that is refused credentials
// (output.ErrCredentials).
func send(ctx context.Context, out output.Driver, runs []plan.Run, log *slog.Logger) (started []plan.Run, failed int, refused error) {
	for _, r := range out.Dispatch(ctx, runs) {
		if r.Err != nil {
			failed++
			if refused == nil && errors.Is(r.Err, output.ErrCredentials) {
				refused = r.Err
			}
			log.Error("dispatch failed", "harness", r.Run.Harness, "serialization_key", string(r.Run.Key), "error", r.Err.Error())
			continue
		}
		log.Info("dispatched", "harness", r.Run.Harness, "serialization_key", string(r.Run.Key), "driver", out.Name(), "run", refText(r))
		started = append(started, r.Run)
	}
	return started, failed, refused
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

// newInput builds the input driver the options name.
func newInput(o Options, cfg *config.Config, log *slog.Logger) (input.Driver, error) {
	name := o.InputDriver
	if name == "" {
		name = drivername.JSONIn
		switch getenv := o.Output.Getenv; {
		case getenv("GITHUB_EVENT_PATH") != "":
			name = drivername.GHAEvent
		case getenv("CI_PIPELINE_SOURCE") == "trigger" && getenv("TRIGGER_PAYLOAD") != "":
			name = drivername.GitLabEvent
		}
	}
	switch name {
	case drivername.JSONIn:
		if o.EventName != "" {
			return nil, config.Invalid(errors.New("--event-name is for --input-driver gha-event, but the input driver is json (a NormalizedEvent); pass --input-driver gha-event to read a GitHub Actions event"))
		}
		return jsonin.New(o.InputFile, o.Stdin), nil
	case drivername.GHAEvent:
		d, err := ghaevent.NewFromEnv(ghaevent.Options{
			EventName: o.EventName, Path: o.InputFile, Stdin: o.Stdin, Repo: cfg.Repo, Log: log,
		}, o.Output.Getenv)
		if err != nil {
			return nil, config.Invalid(err)
		}
		return d, nil
	case drivername.GitLabEvent:
		d, err := gitlabevent.NewFromEnv(gitlabevent.Options{Path: o.InputFile, Stdin: o.Stdin, Repo: cfg.Repo, Log: log}, "", o.Output.Getenv)
		if err != nil {
			return nil, config.Invalid(err)
		}
		return d, nil
	}
	return nil, config.Invalid(fmt.Errorf("--input-driver %q: want %s", name, english.Or(drivername.DispatchInputNames())))
}

// positioned is an input that knows the position of the change it read
// (gitlab-event, gha-event: time and the platform's id of the change).
type positioned interface {
	ChangePos() changepos.Pos
}

// keyRuns gives the runs the idempotency key of the change when the input
// knows the change's position, so that the backstops recognise the change
// as dispatched (docs/gitlab.md, docs/github.md): the key they compute
// for the same change (changepos.Key).
func keyRuns(in input.Driver, runs []plan.Run) {
	ct, ok := in.(positioned)
	if !ok || ct.ChangePos().IsZero() {
		return
	}
	for i := range runs {
		runs[i].WorkItem.IdempotencyKey = changepos.Key(string(runs[i].Key), ct.ChangePos())
	}
}
