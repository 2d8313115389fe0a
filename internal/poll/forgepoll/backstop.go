package forgepoll

import (
	"context"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// Backstop is the part of a forge driver that is the same on every
// forge, embedded in it: the API usage it reports (poll.Driver.Usage),
// the forge's clock (poll.TrackerClock) and the receipts of scheduled
// discovery (poll.ReceiptKeeper). A forge keeps no property of ours on
// an issue: the dispatched runs are the records, so a try is the run
// itself and Tried writes nothing; a version given up on is remembered
// in the GiveUps.
type Backstop[S Subject] struct {
	w     *Window[S]
	q     *GiveUps
	tail  func(S) string
	now   func() time.Time
	usage func() poll.Usage
}

// NewBackstop returns the backstop over w's subjects: q the versions
// given up on, tail a subject's scope key without its harness, now the
// forge's clock, usage the API calls made (nil: none reported).
func NewBackstop[S Subject](w *Window[S], q *GiveUps, tail func(S) string, now func() time.Time, usage func() poll.Usage) Backstop[S] {
	if usage == nil {
		usage = func() poll.Usage { return poll.Usage{} }
	}
	return Backstop[S]{w: w, q: q, tail: tail, now: now, usage: usage}
}

var (
	_ poll.ReceiptKeeper = Backstop[Subject]{}
	_ poll.TrackerClock  = Backstop[Subject]{}
)

// Usage implements poll.Driver.
func (b Backstop[S]) Usage() poll.Usage { return b.usage() }

// TrackerNow implements poll.TrackerClock: the forge's time.
func (b Backstop[S]) TrackerNow() time.Time { return b.now() }

// Tried implements poll.ReceiptKeeper: nothing to write, the dispatched
// run is the try.
func (Backstop[S]) Tried(context.Context, *poll.Item, map[string]polllock.EntityRun) error {
	return nil
}

// GaveUp implements poll.ReceiptKeeper: the version is remembered as
// given up on for the harness (in memory and the state directory), so
// that it is given up on once; the cycle logged and counted it.
func (b Backstop[S]) GaveUp(_ context.Context, it *poll.Item, harness, version string) error {
	s, ok := b.w.Subject(it.ID)
	if !ok {
		return nil
	}
	b.q.Add(harness, b.tail(s), version, b.now().UTC())
	return nil
}
