package cli

import (
	"context"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/jsonout"
)

// outputNames lists the output drivers in the order they are documented.
var outputNames = []string{"json", "gha-matrix", "gha-dispatch", "gitlab-pipeline", "local"}

// newOutput builds the output driver called name from config and the
// environment. An unknown name or missing setting is the user's error.
func (app *App) newOutput(ctx context.Context, name string, cfg *config.Config) (output.Driver, error) {
	switch name {
	case "json", "gha-matrix":
		return jsonout.New(name, app.Stdout)
	}
	if knownOutput(name) {
		return app.newPlatformOutput(ctx, name, cfg)
	}
	return nil, UserError(fmt.Errorf("--output-driver %q: want one of %v", name, outputNames))
}

// knownOutput reports whether name is an output driver.
func knownOutput(name string) bool {
	for _, n := range outputNames {
		if n == name {
			return true
		}
	}
	return false
}

// closeOutput finishes drivers that buffer or run work in process.
func closeOutput(ctx context.Context, d output.Driver) error {
	if f, ok := d.(output.Finisher); ok {
		return f.Close(ctx)
	}
	return nil
}
