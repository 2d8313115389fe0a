package cli

import (
	"errors"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
)

// newGitLabOutput builds the gitlab-pipeline driver: project and ref from
// config (project defaults to the config repo), then GITLAB_API_URL or
// CI_API_V4_URL, GITLAB_TOKEN, CI_PROJECT_PATH and CI_DEFAULT_BRANCH.
func (app *App) newGitLabOutput(cfg *config.Config) (output.Driver, error) {
	o := gitlabpipeline.Options{
		Project: cfg.Outputs.GitLabPipeline.Project,
		Ref:     cfg.Outputs.GitLabPipeline.Ref,
		Log:     app.Log,
	}
	if o.Project == "" {
		o.Project = cfg.Repo
	}
	d, err := gitlabpipeline.New(gitlabpipeline.FromEnv(o, app.Getenv))
	if err != nil {
		if errors.Is(err, gitlabpipeline.ErrConfig) {
			return nil, UserError(err)
		}
		return nil, fmt.Errorf("gitlab-pipeline: %w", err)
	}
	return d, nil
}
