package gitlab

import (
	"context"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/newest"
)

// ScopeRecords lists a scope's pipelines for steering (docs/steering.md):
// the pipelines named for resource key rk, created at or after from,
// newest first, each with its state and, when it is not ours, waiting or
// cancelled, its idempotency key (one variables read per pipeline,
// remembered across calls).
type ScopeRecords struct{ l *ScopeList }

// NewScopeRecords returns the listing of rk's pipelines in project.
func NewScopeRecords(gl *gitlab.Client, project, rk string) *ScopeRecords {
	return &ScopeRecords{l: NewScopeList(gl, project, PipelineName(rk))}
}

// List lists the pipelines created at or after from, except ours.
func (s *ScopeRecords) List(ctx context.Context, from time.Time, ours int64) ([]newest.Run, error) {
	runs, err := s.l.List(ctx, from, 0, func(p *gitlab.PipelineInfo) bool {
		st := StateOf(p.Status)
		return p.ID != ours && (st == newest.Waiting || st == newest.Cancelled)
	})
	out := runs[:0]
	for _, r := range runs {
		if r.ID != ours {
			out = append(out, r)
		}
	}
	return out, err
}
