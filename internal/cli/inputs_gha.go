package cli

import (
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/input"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
)

// newGHAEventInput maps a GitHub Actions event ($GITHUB_EVENT_PATH and
// $GITHUB_EVENT_NAME, or --input-file and --event-name) to a NormalizedEvent.
func (app *App) newGHAEventInput(o *dispatchOptions, cfg *config.Config) (input.Driver, error) {
	d, err := ghaevent.NewFromEnv(ghaevent.Options{
		EventName: o.eventName, Path: o.inputFile, Stdin: app.Stdin, Repo: cfg.Repo, Log: app.Log,
	}, app.Getenv)
	if err != nil {
		return nil, UserError(err)
	}
	return d, nil
}
