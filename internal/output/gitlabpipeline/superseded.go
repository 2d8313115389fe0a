package gitlabpipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/newest"
)

// Superseded reports whether a live (not cancelled or skipped) pipeline
// of the scope rk supersedes pipeline pipelineID, which carries the
// idempotency key key (newest.Supersedes: a newer change, or the same
// change with a lower id; when either carries no change, a pipeline
// created after it), and returns the newest such pipeline id (0 when
// none). A pipeline created after ours that carries an older change does
// not supersede it: its own dispatcher cancels it.
//
// The agent job calls it (through CheckSuperseded) before doing any work:
// a pipeline that acquired its resource while a pipeline of a newer
// change of its scope was there carries an outdated event, and must exit
// without running the agent; the newer pipeline will run next. This
// closes the race between "a waiter acquires the resource" and "the
// driver cancels it" (docs/gitlab.md).
func (d *Driver) Superseded(ctx context.Context, rk string, pipelineID int64, key string) (int64, error) {
	l := glapi.NewScopeList(d.gl, d.o.Project, glapi.PipelineName(rk))
	me := newest.Run{ID: pipelineID, Seq: pipelineID, Key: key} // its agent has not started
	var from time.Time
	stop := pipelineID
	withKey := func(*gitlab.PipelineInfo) bool { return false }
	if p, ok := newest.Change(key); ok {
		// every pipeline of that change or a newer one was created since
		from, stop = p.At, 0
		withKey = func(p *gitlab.PipelineInfo) bool { return p.ID != pipelineID && glapi.Live(p) }
	}
	runs, err := l.List(ctx, from, stop, withKey)
	if err != nil {
		return 0, err
	}
	if r, ok := newest.Superseded(me, runs); ok {
		return r.ID, nil
	}
	return 0, nil
}

// CheckSuperseded is the agent job's start-up check inside GitLab CI. It
// reads CI_PIPELINE_ID, FULLSEND_RESOURCE_KEY, CI_PROJECT_ID (or
// CI_PROJECT_PATH), CI_API_V4_URL (or GITLAB_API_URL) and GITLAB_TOKEN.
// Outside a fullsend GitLab pipeline (no CI_PIPELINE_ID or no resource
// key) it returns false and no error. When it returns true, msg says which
// newer pipeline takes over, and the caller should exit 0 without running
// the agent.
func CheckSuperseded(ctx context.Context, getenv Getenv, o Options) (superseded bool, msg string, err error) {
	rk := strings.TrimSpace(getenv(glapi.VarResourceKey))
	idText := strings.TrimSpace(getenv("CI_PIPELINE_ID"))
	if rk == "" || idText == "" {
		return false, "", nil
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id < 1 {
		return false, "", fmt.Errorf("gitlab-pipeline: CI_PIPELINE_ID %q is not a pipeline id", idText)
	}
	if o.Project == "" {
		o.Project = strings.TrimSpace(getenv("CI_PROJECT_ID"))
	}
	if o.Ref == "" {
		o.Ref = strings.TrimSpace(getenv("CI_COMMIT_REF_NAME"))
	}
	o = FromEnv(o, getenv)
	d, err := New(o)
	if err != nil {
		return false, "", err
	}
	newer, err := d.Superseded(ctx, rk, id, strings.TrimSpace(getenv(glapi.VarIdempotencyKey)))
	if err != nil {
		return false, "", fmt.Errorf("gitlab-pipeline: superseded check for pipeline %d: %w", id, err)
	}
	if newer == 0 {
		return false, "", nil
	}
	return true, fmt.Sprintf("pipeline %d is superseded by pipeline %d of the same scope (a newer change, or a later run); exiting without running the agent", id, newer), nil
}
