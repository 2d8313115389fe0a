package poll

import (
	"context"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// MaxDispatchAttempts is how many cycles may fail to dispatch the same
// change for a harness, while the output started other runs, before the
// change is quarantined.
const MaxDispatchAttempts = 3

// Poison is a change the cycle gives up on: it is recorded on its item,
// logged and counted, and the checkpoint moves past it.
type Poison struct {
	Harness string    // empty for an invalid event (no harness saw it)
	Change  string    // the change's id (ChangeID)
	At      time.Time // when the change happened
	Reason  string
	// Event is the change's event when it had a valid one (for the
	// feedback on its item); nil for an invalid event.
	Event *event.Event
}

// Quarantiner is the capability (Capabilities.Quarantine) of drivers that keep a quarantine record on
// their items. Without it, failed dispatches are retried every cycle and
// invalid events are only logged and counted.
type Quarantiner interface {
	// Failed records one more failed dispatch of p.Change for p.Harness
	// and returns how many consecutive cycles failed on it.
	Failed(ctx context.Context, it *Item, p Poison) (attempts int, err error)
	// Quarantine records p on the item.
	Quarantine(ctx context.Context, it *Item, p Poison, attempts int) error
}

// ChangeID names a change in logs and quarantine records: the comment id
// for comments, else the source type, transition and time.
func ChangeID(ev *event.Event, at time.Time) string {
	if c := ev.Transition.Comment; c != nil && c.ID != "" {
		return "comment/" + c.ID
	}
	return ev.Source.RawType + "/" + ev.Transition.Kind + "@" + at.UTC().Format(time.RFC3339Nano)
}
