package local

import (
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
)

// FromConfig builds the local executor from config.yaml (outputs.local):
// each run is a child `fullsend run --config-dir cfg.Dir` whose output,
// prefixed per line, goes to env.Stderr. A bad setting is config.Invalid.
func FromConfig(cfg *config.Config, env output.Env) (*Driver, error) {
	d, err := New(Options{
		MaxParallel: cfg.Outputs.Local.MaxParallel,
		Grace:       cfg.Outputs.Local.Grace,
		ConfigDir:   cfg.Dir,
		Stdout:      env.Stderr,
		Stderr:      env.Stderr,
		Log:         env.Log,
		LogFormat:   env.LogFormat,
		LogLevel:    env.LogLevel,
		Metrics:     env.Metrics,
	})
	if err != nil {
		return nil, config.Invalid(fmt.Errorf("%s: %w", DriverName, err))
	}
	return d, nil
}
