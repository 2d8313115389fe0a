package gitlabpipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// Superseded reports whether the scope rk has a pipeline newer than
// pipelineID that was not cancelled or skipped, and returns the newest
// such pipeline id (0 when none).
//
// The agent job calls it (through CheckSuperseded) before doing any work:
// a pipeline that acquired its resource after a newer pipeline of its
// scope was created carries an outdated event, and must exit without
// running the agent; the newer pipeline will run next. This closes the
// race between "a waiter acquires the resource" and "the driver cancels
// it" (docs/gitlab.md).
func (d *Driver) Superseded(ctx context.Context, rk string, pipelineID int64) (int64, error) {
	ps, err := d.listScope(ctx, rk, nil, "desc", func(p *gitlab.PipelineInfo) bool { return p.ID <= pipelineID })
	if err != nil {
		return 0, err
	}
	for _, p := range ps {
		if p.ID <= pipelineID {
			break
		}
		if p.Status != string(gitlab.Canceled) && p.Status != string(gitlab.Skipped) {
			return p.ID, nil
		}
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
	rk := strings.TrimSpace(getenv(VarResourceKey))
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
	newer, err := d.Superseded(ctx, rk, id)
	if err != nil {
		return false, "", fmt.Errorf("gitlab-pipeline: superseded check for pipeline %d: %w", id, err)
	}
	if newer == 0 {
		return false, "", nil
	}
	return true, fmt.Sprintf("pipeline %d is superseded by pipeline %d of the same scope; exiting without running the agent", id, newer), nil
}
