package runner

import (
	"context"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
)

// redundant is the start-up check of a run inside the CI platform that
// dispatched it, before its agent starts (docs/runner.md): true when
// another run of its scope does the work, so this run must exit 0
// without starting the agent.
//
//   - In a fullsend GitLab pipeline (CI_PIPELINE_ID and
//     FULLSEND_RESOURCE_KEY set): a pipeline of a newer change of the
//     scope, or of the same change that started first
//     (glapi.CheckSuperseded, docs/gitlab.md).
//   - In a GitHub Actions run of a GitHub change (GITHUB_RUN_ID and an
//     idempotency key of a GitHub subject; not a child of the local
//     output driver, whose queue coalesces): a run of the same change
//     that started first, a live run of a newer change of the scope, or
//     a newer change's run GitHub dropped for this one, which its
//     dispatcher re-runs (Request.GitHubStartCheck: ghadispatch.StartCheck,
//     docs/github.md): the
//     rule its dispatchers settle it by, applied by the run because
//     GitHub may start it before they do.
//
// A failing check is logged and the run proceeds: running a change once
// more is harmless, skipping the only run would not be.
func redundant(ctx context.Context, r Request) bool {
	yield, msg, err := glapi.CheckSuperseded(ctx, r.Getenv, glapi.Options{Log: r.Log})
	if err == nil && !yield && r.GitHubStartCheck != nil && CIRun(r.Getenv, 0).Driver == drivername.GHADispatch {
		yield, msg, err = r.GitHubStartCheck(ctx, r.Getenv, r.Log)
	}
	if err != nil {
		r.Log.Warn("start-up check failed; running the agent", "error", err.Error())
		return false
	}
	if yield {
		r.Log.Info(msg)
	}
	return yield
}
