package gitlabpipeline

import (
	"context"
	"fmt"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// settles reports whether a created pipeline is settled: its run carries
// an idempotency key of a GitLab subject, the one kind of change two paths
// (the gitlab-event webhook path and the gitlab-poll backstop) may both
// dispatch.
func settles(run plan.Run) bool {
	if run.WorkItem.IdempotencyKey == "" {
		return false
	}
	_, _, s, err := scope.Parse(run.Key)
	return err == nil && s.System == event.SystemGitLab
}

// Settle is the verify half of dispatch-then-verify, the coordination
// between concurrent pollers and the webhook path (GitLab has no cheap
// lock): after creating pipeline ours, named name and carrying key, it
// reads the other pipelines of that name with a lower id; when one of
// them carries key, ours is a duplicate and is
// canceled (kept false). Of racing dispatchers exactly the one with the
// lowest pipeline id keeps its pipeline, whatever the interleaving. A
// scheduled run's key (scope key @ entity version, no change time) is
// carried by every attempt of the version: a pipeline that finished is
// an earlier attempt, not a duplicate, and is not read (Finished).
func Settle(ctx context.Context, gl *gitlab.Client, project, name, key string, ours int64) (kept bool, err error) {
	lo := gitlab.ListOptions{PerPage: 100, Page: 1}
	asc, by := "asc", "id"
	_, attempts := changeTime(key)
	attempts = !attempts
	for range maxListPages {
		ps, resp, err := gl.Pipelines.ListProjectPipelines(project, &gitlab.ListProjectPipelinesOptions{
			ListOptions: lo, Name: &name, OrderBy: &by, Sort: &asc}, gitlab.WithContext(ctx))
		if err != nil {
			return true, fmt.Errorf("gitlab-pipeline: settling: listing pipelines %s: %w", name, err)
		}
		for _, p := range ps {
			if p.ID >= ours {
				return true, nil
			}
			if attempts && Finished(p.Status) {
				continue
			}
			dup, err := carries(ctx, gl, project, p.ID, key)
			if err != nil {
				return true, err
			}
			if dup {
				_, _, err := gl.Pipelines.CancelPipelineBuild(project, ours, gitlab.WithContext(glapi.WriteCtx(ctx)))
				if err != nil {
					return true, fmt.Errorf("gitlab-pipeline: canceling duplicate pipeline %d: %w", ours, err)
				}
				return false, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		lo.Page = resp.NextPage
	}
	return true, nil
}

func carries(ctx context.Context, gl *gitlab.Client, project string, id int64, key string) (bool, error) {
	vars, _, err := gl.Pipelines.GetPipelineVariables(project, id, gitlab.WithContext(ctx))
	if err != nil {
		return false, fmt.Errorf("gitlab-pipeline: settling: reading the variables of pipeline %d: %w", id, err)
	}
	for _, v := range vars {
		if v.Key == VarIdempotencyKey && v.Value == key {
			return true, nil
		}
	}
	return false, nil
}

// changeTime is the change time an idempotency key names (false for a
// scheduled run's key, which names an entity version).
func changeTime(key string) (time.Time, bool) {
	_, _, suffix, ok := reconcile.SplitScoped(key)
	if !ok {
		return time.Time{}, false
	}
	return reconcile.ChangeTime(suffix)
}
