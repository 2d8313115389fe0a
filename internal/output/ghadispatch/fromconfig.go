package ghadispatch

import (
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
)

// FromConfig builds the driver from config.yaml (repo, outputs.gha-dispatch)
// and the environment (GITHUB_API_URL, GITHUB_TOKEN/GH_TOKEN,
// GITHUB_REF_NAME). Every error is the user's (config.Invalid): a missing
// token or a bad API URL.
func FromConfig(cfg *config.Config, env output.Env) (*Driver, error) {
	d, err := New(Options{
		Repo:            cfg.Repo,
		DefaultWorkflow: cfg.Outputs.GHADispatch.Workflow,
		Ref:             cfg.Outputs.GHADispatch.Ref,
		Getenv:          env.Getenv,
		Log:             env.Log,
	})
	if err != nil {
		return nil, config.Invalid(err) // already says "gha-dispatch: …"
	}
	return d, nil
}
