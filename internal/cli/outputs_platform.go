package cli

import (
	"context"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
)

// newPlatformOutput builds the drivers that reach a CI platform or run
// agents in process.
func (app *App) newPlatformOutput(_ context.Context, name string, _ *config.Config) (output.Driver, error) {
	return nil, UserError(fmt.Errorf("--output-driver %q is not available in this build", name))
}
