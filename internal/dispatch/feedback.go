package dispatch

import (
	"context"
	"log/slog"
	"time"

	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/input"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// notify writes the feedback of one dispatch on the item (package
// feedback), after the dispatches: the acknowledgment of the runs that
// started, or the neutral reaction to a denied command. Only the
// platform inputs (gha-event, gitlab-event) have an item to write on; a
// json event gets none, and neither does a plan printed instead of
// dispatched (json, gha-matrix). It never fails the dispatch: a missing
// token or client is logged like any failed write.
func notify(ctx context.Context, o Options, reg *harness.Registry, in input.Driver, d core.Decision, started []plan.Run, log *slog.Logger) {
	if out, ok := drivername.LookupOutput(o.OutputDriver); !ok || out.PrintsPlan {
		return
	}
	n := notifier(o, reg, in, log)
	if n == nil {
		return
	}
	if d.Verdict == core.VerdictDenied {
		n.Refuse(ctx, d.Event)
		return
	}
	var at time.Time
	if ct, ok := in.(positioned); ok {
		at = ct.ChangePos().At
	}
	runs := make([]feedback.Started, 0, len(started))
	for _, r := range started {
		runs = append(runs, feedback.Started{Harness: r.Harness, Event: r.Event, At: at})
	}
	n.Acknowledge(ctx, runs)
}

// notifier builds the feedback writer of the input's platform from the
// environment the input read (GITHUB_TOKEN; GITLAB_TOKEN), or nil.
func notifier(o Options, reg *harness.Registry, in input.Driver, log *slog.Logger) *feedback.Notifier {
	var w feedback.Writer
	var system string
	getenv := o.Output.Getenv
	switch in.Name() {
	case drivername.GHAEvent:
		env := github.EnvOf(getenv)
		c, err := github.NewClient(env.APIURL, env.Token, github.ClientOptions{})
		if err != nil {
			log.Warn("feedback: no GitHub client; nothing written on the item", "error", err.Error())
			return nil
		}
		w, system = &feedback.GitHub{Client: c}, event.SystemGitHub
	case drivername.GitLabEvent:
		env := gitlabevent.EnvOf(getenv)
		c, err := gitlab.NewClient(gitlab.Options{APIURL: env.APIURL, Token: env.Token, Log: log})
		if err != nil {
			log.Warn("feedback: no GitLab client; nothing written on the item", "error", err.Error())
			return nil
		}
		w, system = &feedback.GitLab{Client: c, Project: env.Project}, event.SystemGitLab
	default:
		return nil
	}
	return feedback.New(feedback.Options{Writer: w, System: system, Harnesses: reg,
		Metrics: feedback.NewMetrics(o.Output.Metrics), Log: log})
}
