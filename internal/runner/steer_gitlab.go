package runner

import (
	"context"
	"strconv"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/steer/gitlabsteer"
	"github.com/fullsend-dev/fullsend/internal/steer/localsteer"
)

// gitlab is steering on a GitLab item, in a fullsend pipeline of GitLab
// CI: the active pipeline's key (FULLSEND_IDEMPOTENCY_KEY), the consumed
// check of a note's pipeline, and the source over the scope's pipelines.
func (e steerEnv) gitlab(ctx context.Context) (steerCheck, error) {
	rk := e.getenv(gitlab.VarResourceKey)
	id, _ := strconv.ParseInt(e.getenv("CI_PIPELINE_ID"), 10, 64)
	own, ok := newest.Change(e.getenv(gitlab.VarIdempotencyKey))
	var o gitlabsteer.Options
	switch {
	case e.getenv(localsteer.EnvQueue) != "":
		if !e.localRecords(&o.Own, &o.Records) {
			return steerCheck{}, nil
		}
	case rk != "" && id > 0 && ok:
		o.Own, o.Pipeline = own, id
	default:
		e.log.Info("steer: not in a fullsend GitLab pipeline of a change; the run goes on without steering")
		return steerCheck{}, nil
	}
	t, err := e.target()
	if err != nil {
		return steerCheck{}, err
	}
	c, err := gitlab.NewClient(gitlab.Options{Log: e.log}.FromEnv(e.r.Getenv))
	if err != nil {
		return steerCheck{}, err
	}
	me, _, err := c.Users.CurrentUser(gl.WithContext(ctx))
	if err != nil {
		return steerCheck{}, err
	}
	decide, err := e.decider(me.Username)
	if err != nil {
		return steerCheck{}, err
	}
	project := gitlab.JobProject(e.r.Getenv)
	o.Client, o.Project, o.IID, o.MergeRequest, o.Harness, o.Repo, o.Decide = c, t.Repo, t.Number, t.MergeRequest, e.h.Name, e.ev.Repo, decide
	o.Run = e.runName()
	if o.Records == nil {
		o.Pipelines = gitlab.NewScopeRecords(c, project, rk)
	}
	src, err := gitlabsteer.New(o)
	if err != nil {
		return steerCheck{}, err
	}
	if note := e.commentID(); note != 0 {
		done, err := src.Consumed(ctx, note, me.ID)
		if err != nil {
			return steerCheck{}, err
		}
		if done {
			return steerCheck{Skip: true, Msg: "this pipeline's note was delivered into the run before it (steering); exiting without running the agent"}, nil
		}
	}
	return steerCheck{Spec: &SteerSpec{Source: src, Ordered: true}}, nil
}
