package gitlabpipeline

import (
	"errors"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
)

// FromConfig builds the driver: project and ref from config.yaml
// (outputs.gitlab-pipeline; the project defaults to the config repo), then
// GITLAB_API_URL or CI_API_V4_URL, GITLAB_TOKEN, CI_PROJECT_PATH and
// CI_DEFAULT_BRANCH. A missing or bad setting is config.Invalid.
func FromConfig(cfg *config.Config, env output.Env) (*Driver, error) {
	o := Options{Project: cfg.Outputs.GitLabPipeline.Project, Ref: cfg.Outputs.GitLabPipeline.Ref, Log: env.Log}
	if o.Project == "" {
		o.Project = cfg.Repo
	}
	d, err := New(FromEnv(o, env.Getenv))
	if err != nil {
		if errors.Is(err, ErrConfig) {
			return nil, config.Invalid(err)
		}
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return d, nil
}
