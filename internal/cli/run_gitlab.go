package cli

import (
	"context"

	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
)

// supersededOnGitLab is the agent job's start-up check inside a fullsend
// GitLab pipeline (CI_PIPELINE_ID and FULLSEND_RESOURCE_KEY set): true
// when a newer pipeline of the same scope exists, so this run must exit 0
// without starting the agent (docs/gitlab.md). A failing check is logged
// and the run proceeds: running an older event once more is harmless,
// skipping the only run would not be. Outside GitLab it returns false.
func supersededOnGitLab(ctx context.Context, app *App) bool {
	sup, msg, err := gitlabpipeline.CheckSuperseded(ctx, gitlabpipeline.Getenv(app.Getenv), gitlabpipeline.Options{Log: app.Log})
	if err != nil {
		app.Log.Warn("superseded check failed; running the agent", "error", err.Error())
		return false
	}
	if sup {
		app.Log.Info(msg)
	}
	return sup
}
