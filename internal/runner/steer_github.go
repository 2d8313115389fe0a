package runner

import (
	"context"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/steer"
	"github.com/fullsend-dev/fullsend/internal/steer/githubsteer"
	"github.com/fullsend-dev/fullsend/internal/steer/localsteer"
)

// github is steering on a GitHub item: the active run's change and the
// records of its scope from GitHub Actions (its own run's title, one
// read; the run workflow's runs) or from the local executor (its
// pending file and FULLSEND_IDEMPOTENCY_KEY), the consumed check of a
// comment's run, and the source.
func (e steerEnv) github(ctx context.Context) (steerCheck, error) {
	t, err := e.target()
	if err != nil {
		return steerCheck{}, err
	}
	env := github.EnvOf(e.r.Getenv)
	c, err := github.NewClient(env.APIURL, env.Token, github.ClientOptions{})
	if err != nil {
		return steerCheck{}, err
	}
	o := githubsteer.Options{Client: c, Repo: t.Repo, Number: int(t.Number), Harness: e.h.Name, Scope: e.key, TargetRepo: e.ev.Repo,
		Run: e.runName()}
	ok, err := e.githubRecords(ctx, &o)
	if err != nil || !ok {
		return steerCheck{}, err
	}
	self, err := github.Self(ctx, c, githubsteer.Policy)
	if err != nil {
		return steerCheck{}, err
	}
	if id := e.commentID(); id != 0 {
		done, err := githubsteer.Consumed(ctx, c, t.Repo, int(t.Number), e.h.Name, id, o.Own.At.Add(-time.Second), self)
		if err != nil {
			return steerCheck{}, err
		}
		if done {
			return steerCheck{Skip: true, Msg: "this run's comment was delivered into the run before it (steering); exiting without running the agent"}, nil
		}
	}
	if o.Decide, err = e.decider(self); err != nil {
		return steerCheck{}, err
	}
	src, err := githubsteer.New(o)
	if err != nil {
		return steerCheck{}, err
	}
	return steerCheck{Spec: &SteerSpec{Source: src, Ordered: true}}, nil
}

// githubRecords sets o's own change and records for the platform the
// run is on; false when it is on none whose pending runs it can read.
func (e steerEnv) githubRecords(ctx context.Context, o *githubsteer.Options) (bool, error) {
	runID, _ := strconv.ParseInt(e.getenv("GITHUB_RUN_ID"), 10, 64)
	switch {
	case e.getenv(localsteer.EnvQueue) != "":
		return e.localRecords(&o.Own, &o.Records), nil
	case e.getenv("GITHUB_ACTIONS") == "true" && runID > 0:
		o.RunsRepo = e.getenv("GITHUB_REPOSITORY")
		if o.RunsRepo == "" {
			o.RunsRepo = e.cfg.Repo
		}
		run, err := githubsteer.ReadRun(ctx, o.Client, o.RunsRepo, e.key, runID)
		if err != nil {
			return false, err
		}
		if !run.OK {
			e.log.Info("steer: this run's title names no change; the run goes on without steering", "run", runID)
			return false, nil
		}
		o.Own, o.Workflow, o.Since, o.RunID = run.Own, run.Workflow, run.Created, runID
		return true, nil
	}
	e.log.Info("steer: no platform whose pending runs this run can read; the run goes on without steering")
	return false, nil
}

// localRecords sets the records of a child of the local executor: its
// pending file, and its own change; false without one.
func (e steerEnv) localRecords(own *changepos.Pos, records *func(context.Context) ([]steer.Record, error)) bool {
	p, ok := newest.Change(e.getenv("FULLSEND_IDEMPOTENCY_KEY"))
	if !ok {
		e.log.Info("steer: this local run names no change; the run goes on without steering")
		return false
	}
	path := e.getenv(localsteer.EnvQueue)
	*own = p
	*records = func(context.Context) ([]steer.Record, error) { return localsteer.Read(path) }
	return true
}
