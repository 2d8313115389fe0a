package cli

import (
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/input"
)

func (app *App) newGHAEventInput(_ *dispatchOptions, _ *config.Config) (input.Driver, error) {
	return nil, UserError(fmt.Errorf("--input-driver gha-event is not available in this build"))
}
