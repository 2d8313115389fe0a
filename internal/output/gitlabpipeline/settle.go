package gitlabpipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// settles reports whether a created pipeline is settled
// (plan.Run.Settles): the gitlab-event webhook path and the gitlab-poll
// backstop may both dispatch its change.
func settles(run plan.Run) bool { return run.Settles(event.SystemGitLab) }

// Settle is the verify half of dispatch-then-verify, the coordination
// between concurrent pollers and the webhook path (GitLab has no cheap
// lock): after creating pipeline ours, named name and carrying key, it
// reads the scope's pipelines (those created since the change key names:
// no pipeline of that change, or of a newer one, is older) and applies
// the newest-pending rule (newest.Settle): ours is canceled (kept false)
// when a pipeline carrying a newer change is live (it covers ours'
// change), or when a pipeline with a lower id carries the same change.
// Of racing dispatchers of one change exactly the one with the lowest
// pipeline id keeps its pipeline, and of racing dispatchers of several
// changes the newest change's, whatever the interleaving. A scheduled
// run's key (scope key @ entity version, no change time) is carried by
// every attempt of the version: a pipeline that finished is an earlier
// attempt, not a duplicate, and is not read (Finished).
func Settle(ctx context.Context, gl *gitlab.Client, project, name, key string, ours int64) (kept bool, err error) {
	kept, _, err = settle(ctx, glapi.NewScopeList(gl, project, name), key, ours)
	return kept, err
}

// settle is Settle over l; me is ours as the rule saw it.
func settle(ctx context.Context, l *glapi.ScopeList, key string, ours int64) (kept bool, me newest.Run, err error) {
	var from time.Time
	withKey := glapi.Live
	if p, isChange := newest.Change(key); isChange {
		from = p.At
	} else {
		withKey = func(p *gitlab.PipelineInfo) bool { return !Finished(p.Status) }
	}
	runs, err := l.List(ctx, from, 0, func(p *gitlab.PipelineInfo) bool { return p.ID != ours && withKey(p) })
	me = newest.Run{ID: ours, Seq: ours, Key: key}
	if err != nil {
		return true, me, fmt.Errorf("gitlab-pipeline: settling: %w", err)
	}
	if i := slices.IndexFunc(runs, func(r newest.Run) bool { return r.ID == ours }); i >= 0 {
		me.Created, me.State = runs[i].Created, runs[i].State
	}
	v := newest.Settle(me, runs, time.Time{}) // GitLab cancels no pipeline itself
	if v.Keep {
		return true, me, nil
	}
	if _, _, err := l.Client.Pipelines.CancelPipelineBuild(l.Project, ours, gitlab.WithContext(glapi.WriteCtx(ctx))); err != nil {
		return true, me, fmt.Errorf("gitlab-pipeline: canceling pipeline %d, which pipeline %d makes redundant: %w", ours, v.Over, err)
	}
	return false, me, nil
}
