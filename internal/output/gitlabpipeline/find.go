package gitlabpipeline

import (
	"context"
	"fmt"
	"strconv"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// FindDispatched reports whether a pipeline of run's scope (found by its
// name, PipelineName) created at or after since (to the second) carries
// run's idempotency key in its FULLSEND_IDEMPOTENCY_KEY variable
// (poll.DispatchFinder). The scope's pipelines are read newest first and
// the listing stops at the first one created before since; each candidate
// costs one variables read. A failed read is an error, never "not found".
func (d *Driver) FindDispatched(ctx context.Context, run plan.Run, since time.Time) (*plan.Ref, bool, error) {
	key := run.WorkItem.IdempotencyKey
	if key == "" || run.Key == "" {
		return nil, false, fmt.Errorf("gitlab-pipeline: run for harness %q has no idempotency key or scope key", run.Harness)
	}
	from := since.UTC().Truncate(time.Second)
	older := func(p *gitlab.PipelineInfo) bool { return p.CreatedAt != nil && p.CreatedAt.Before(from) }
	ps, err := d.listScope(ctx, glapi.ResourceKey(run.Key), nil, "desc", older)
	if err != nil {
		return nil, false, fmt.Errorf("gitlab-pipeline: looking for the pipeline of %s: %w", key, err)
	}
	for _, p := range ps {
		if older(p) {
			continue
		}
		vars, _, err := d.gl.Pipelines.GetPipelineVariables(d.o.Project, p.ID, gitlab.WithContext(ctx))
		if err != nil {
			return nil, false, fmt.Errorf("gitlab-pipeline: reading the variables of pipeline %d in project %s: %w", p.ID, d.o.Project, err)
		}
		for _, v := range vars {
			if v.Key == glapi.VarIdempotencyKey && v.Value == key {
				return &plan.Ref{Driver: Name, ID: strconv.FormatInt(p.ID, 10), URL: p.WebURL}, true, nil
			}
		}
	}
	return nil, false, nil
}
