// Package outputs builds an output driver by its registered name
// (package drivers) from the configuration, calling the driver package's
// FromConfig. It is the one place that knows every output driver package.
package outputs

import (
	"context"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/output/jsonout"
	"github.com/fullsend-dev/fullsend/internal/output/local"
)

// New builds the output driver called name. An unknown name or a missing
// setting is config.Invalid.
func New(name string, cfg *config.Config, env output.Env) (output.Driver, error) {
	switch name {
	case drivername.JSON, drivername.GHAMatrix:
		return driver(jsonout.FromConfig(name, env))
	case drivername.GHADispatch:
		return driver(ghadispatch.FromConfig(cfg, env))
	case drivername.GitLabPipeline:
		return driver(gitlabpipeline.FromConfig(cfg, env))
	case drivername.Local:
		return driver(local.FromConfig(cfg, env))
	}
	return nil, Check(name)
}

// driver returns d as an output.Driver, or a nil one with err (never a
// non-nil interface holding a nil pointer).
func driver[D output.Driver](d D, err error) (output.Driver, error) {
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Check reports, as config.Invalid, whether name is an output driver,
// without building it.
func Check(name string) error {
	if _, ok := drivername.LookupOutput(name); !ok {
		return config.Invalid(fmt.Errorf("--output-driver %q: want one of %v", name, drivername.OutputNames()))
	}
	return nil
}

// Close finishes drivers that buffer or run work in process.
func Close(ctx context.Context, d output.Driver) error {
	if f, ok := d.(output.Finisher); ok {
		return f.Close(ctx)
	}
	return nil
}
