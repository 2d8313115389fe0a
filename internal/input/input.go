// Package input defines the contract of event-driven input drivers: what
// `fullsend dispatch` reads one event through. Drivers live in sub-packages
// (jsonin, ghaevent, gitlabevent). Poll input drivers are a different contract
// (package poll).
package input

import (
	"context"
	"errors"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Driver turns one outside payload into a validated NormalizedEvent.
// A payload that is not acceptable must yield an error that names what is
// wrong and where; callers treat it as the user's input error (exit 2),
// except errors wrapping ErrUnavailable.
type Driver interface {
	Name() string
	Read(ctx context.Context) (*event.Event, error)
}

// ErrUnavailable marks a read that failed because the source could not be
// asked (an API that stayed unreachable after retries): a runtime failure
// (exit 1), not the user's input. Drivers wrap it.
var ErrUnavailable = errors.New("source unavailable")
