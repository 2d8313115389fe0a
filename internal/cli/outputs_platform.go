package cli

import (
	"context"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/output/local"
)

// newPlatformOutput builds the drivers that reach a CI platform or run
// agents in process. Credentials come from the environment only.
func (app *App) newPlatformOutput(_ context.Context, name string, cfg *config.Config) (output.Driver, error) {
	switch name {
	case "gha-dispatch":
		d, err := ghadispatch.New(ghadispatch.Options{
			Repo:            cfg.Repo,
			DefaultWorkflow: cfg.Outputs.GHADispatch.Workflow,
			Ref:             cfg.Outputs.GHADispatch.Ref,
			Getenv:          app.Getenv,
			Log:             app.Log,
		})
		if err != nil {
			return nil, UserError(err) // already says "gha-dispatch: …"
		}
		return d, nil
	case "gitlab-pipeline":
		return app.newGitLabOutput(cfg)
	case "local":
		d, err := local.New(local.Options{
			MaxParallel: cfg.Outputs.Local.MaxParallel,
			Grace:       cfg.Outputs.Local.Grace,
			ConfigDir:   app.ConfigDir,
			Stdout:      app.Stderr,
			Stderr:      app.Stderr,
			Log:         app.Log,
		})
		if err != nil {
			return nil, UserError(fmt.Errorf("local: %w", err))
		}
		return d, nil
	}
	return nil, UserError(fmt.Errorf("--output-driver %q is not available in this build", name))
}
