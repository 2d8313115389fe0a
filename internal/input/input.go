// Package input defines the contract of event-driven input drivers: what
// `fullsend dispatch` reads one event through. Drivers live in sub-packages
// (jsonin, ghaevent). Poll input drivers are a different contract
// (package poll).
package input

import (
	"context"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Driver turns one outside payload into a validated NormalizedEvent.
// A payload that is not acceptable must yield an error that names what is
// wrong and where; callers treat it as the user's input error (exit 2).
type Driver interface {
	Name() string
	Read(ctx context.Context) (*event.Event, error)
}
