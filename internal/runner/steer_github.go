package runner

import (
	"context"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/steer/githubsteer"
)

// github is steering on a GitHub item, in a run of GitHub Actions: the
// active run's key from its own run (one read), the consumed check of a
// comment's run, and the source over the run workflow's runs.
func (e steerEnv) github(ctx context.Context) (steerCheck, error) {
	runID, _ := strconv.ParseInt(e.getenv("GITHUB_RUN_ID"), 10, 64)
	if e.getenv("GITHUB_ACTIONS") != "true" || runID < 1 {
		e.log.Info("steer: no platform whose pending runs this run can read; the run goes on without steering")
		return steerCheck{}, nil
	}
	t, err := e.target()
	if err != nil {
		return steerCheck{}, err
	}
	env := github.EnvOf(e.r.Getenv)
	c, err := github.NewClient(env.APIURL, env.Token, github.ClientOptions{})
	if err != nil {
		return steerCheck{}, err
	}
	runsRepo := e.getenv("GITHUB_REPOSITORY")
	if runsRepo == "" {
		runsRepo = e.cfg.Repo
	}
	run, err := githubsteer.ReadRun(ctx, c, runsRepo, e.key, runID)
	if err != nil {
		return steerCheck{}, err
	}
	if !run.OK {
		e.log.Info("steer: this run's title names no change; the run goes on without steering", "run", runID)
		return steerCheck{}, nil
	}
	self, err := github.Self(ctx, c, githubsteer.Policy)
	if err != nil {
		return steerCheck{}, err
	}
	if id := e.commentID(); id != 0 {
		done, err := githubsteer.Consumed(ctx, c, t.Repo, int(t.Number), e.h.Name, id, run.Own.At.Add(-time.Second), self)
		if err != nil {
			return steerCheck{}, err
		}
		if done {
			return steerCheck{Skip: true, Msg: "this run's comment was delivered into the run before it (steering); exiting without running the agent"}, nil
		}
	}
	decide, err := e.decider(self)
	if err != nil {
		return steerCheck{}, err
	}
	src, err := githubsteer.New(githubsteer.Options{Client: c, Repo: t.Repo, RunsRepo: runsRepo, Number: int(t.Number),
		Harness: e.h.Name, Scope: e.key, Own: run.Own, Workflow: run.Workflow, Since: run.Created, RunID: runID,
		TargetRepo: e.ev.Repo, Decide: decide})
	if err != nil {
		return steerCheck{}, err
	}
	return steerCheck{Spec: &SteerSpec{Source: src, Ordered: true}}, nil
}
