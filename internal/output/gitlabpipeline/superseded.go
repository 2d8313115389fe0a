package gitlabpipeline

import (
	"context"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
)

// Superseded is glapi.Superseded in the driver's project: the pipeline
// that supersedes pipelineID in scope rk (0 when none).
func (d *Driver) Superseded(ctx context.Context, rk string, pipelineID int64, key string) (int64, error) {
	return glapi.Superseded(ctx, d.gl, d.o.Project, rk, pipelineID, key)
}
