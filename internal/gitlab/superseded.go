package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/newest"
)

// Superseded reports whether pipeline pipelineID of project, which
// carries the idempotency key key and whose agent job is about to start
// its agent, yields to another pipeline of the scope rk (newest.Yields),
// and returns that pipeline's id (0 when none): a live (not cancelled or
// skipped) pipeline of a newer change; one of the same change with a
// lower id, whatever its state (GitLab keeps every waiter and may hand
// the resource to a later one first: the earlier one runs, and does not
// yield to the later one that exited); when either carries no change,
// one created after it. A pipeline created later that carries an older
// change does not supersede it: its own dispatcher cancels it, and its
// own check makes it exit.
//
// The agent job calls it (through CheckSuperseded) before doing any work:
// a pipeline that acquired its resource while a pipeline of a newer
// change of its scope was there carries an outdated event, and must exit
// without running the agent; the newer pipeline will run next. This
// closes the race between "a waiter acquires the resource" and "the
// driver cancels it" (docs/gitlab.md).
func Superseded(ctx context.Context, c *gl.Client, project, rk string, pipelineID int64, key string) (int64, error) {
	l := NewScopeList(c, project, PipelineName(rk))
	me := newest.Run{ID: pipelineID, Seq: pipelineID, Key: key} // its agent has not started
	var from time.Time
	stop := pipelineID
	withKey := func(*gl.PipelineInfo) bool { return false }
	if p, ok := newest.Change(key); ok {
		// every pipeline of that change or a newer one was created since
		from, stop = p.At, 0
		withKey = func(p *gl.PipelineInfo) bool { return p.ID != pipelineID && Live(p) }
	}
	runs, err := l.List(ctx, from, stop, withKey)
	if err != nil {
		return 0, err
	}
	if r, ok := newest.Yields(me, runs, newest.Attempt{}); ok { // GitLab cancels no pipeline itself
		return r.ID, nil
	}
	return 0, nil
}

// CheckSuperseded is the agent job's start-up check inside GitLab CI. It
// reads CI_PIPELINE_ID, FULLSEND_RESOURCE_KEY, FULLSEND_IDEMPOTENCY_KEY,
// CI_PROJECT_ID (or CI_PROJECT_PATH), and, where o leaves them unset,
// GITLAB_API_URL (or CI_API_V4_URL) and GITLAB_TOKEN. Outside a fullsend
// GitLab pipeline (no CI_PIPELINE_ID or no resource key) it returns false
// and no error. When it returns true, msg says which newer pipeline takes
// over, and the caller should exit 0 without running the agent.
func CheckSuperseded(ctx context.Context, getenv func(string) string, o Options) (superseded bool, msg string, err error) {
	rk := strings.TrimSpace(getenv(VarResourceKey))
	idText := strings.TrimSpace(getenv("CI_PIPELINE_ID"))
	if rk == "" || idText == "" {
		return false, "", nil
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id < 1 {
		return false, "", fmt.Errorf("gitlab-pipeline: CI_PIPELINE_ID %q is not a pipeline id", idText)
	}
	o = o.FromEnv(getenv)
	project := JobProject(getenv)
	if project == "" || strings.Contains(project, "..") {
		return false, "", fmt.Errorf("gitlab-pipeline: superseded check for pipeline %d: %w", id, errNoProject)
	}
	c, err := NewClient(o)
	if err != nil {
		return false, "", fmt.Errorf("gitlab-pipeline: superseded check for pipeline %d: %w", id, err)
	}
	newer, err := Superseded(ctx, c, project, rk, id, strings.TrimSpace(getenv(VarIdempotencyKey)))
	if err != nil {
		return false, "", fmt.Errorf("gitlab-pipeline: superseded check for pipeline %d: %w", id, err)
	}
	if newer == 0 {
		return false, "", nil
	}
	return true, fmt.Sprintf("pipeline %d is superseded by pipeline %d of the same scope (a newer change, an earlier pipeline of its change, or a later run); exiting without running the agent", id, newer), nil
}

// errNoProject is CheckSuperseded's error when the job names no project.
var errNoProject = errors.New("no project: CI_PROJECT_ID and CI_PROJECT_PATH name none (or one with '..')")

// FromEnv fills o's unset connection from the environment of a GitLab CI
// job: APIURL from GITLAB_API_URL, else CI_API_V4_URL; Token from
// GITLAB_TOKEN. Explicit values (flags, config) win.
func (o Options) FromEnv(getenv func(string) string) Options {
	o.APIURL = firstEnv(getenv, o.APIURL, "GITLAB_API_URL", "CI_API_V4_URL")
	o.Token = firstEnv(getenv, o.Token, "GITLAB_TOKEN")
	return o
}

// JobProject is the project of a GitLab CI job: CI_PROJECT_ID, else
// CI_PROJECT_PATH ("" outside GitLab CI).
func JobProject(getenv func(string) string) string {
	return strings.Trim(firstEnv(getenv, "", "CI_PROJECT_ID", "CI_PROJECT_PATH"), "/")
}

// firstEnv is cur, or when it is empty the first of names set in the
// environment (trimmed).
func firstEnv(getenv func(string) string, cur string, names ...string) string {
	for _, n := range names {
		if cur != "" {
			break
		}
		cur = strings.TrimSpace(getenv(n))
	}
	return cur
}
