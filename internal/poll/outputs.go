package poll

import (
	"context"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

// DispatchFinder is implemented by output drivers whose platform records
// the idempotency key a run carries (run.WorkItem.IdempotencyKey) and can
// be asked for it: FindDispatched reports whether a run with that key
// was started at or after since, with its reference when the platform
// gives one. With such an output the cycle writes intents and recovers
// from them; with any other output it does not (a crash between dispatch
// and checkpoint dispatches again).
type DispatchFinder interface {
	FindDispatched(ctx context.Context, run plan.Run, since time.Time) (ref *plan.Ref, found bool, err error)
}

// Flusher is implemented by output drivers that print a plan instead of
// starting runs: Flush writes every entry dispatched so far where its
// consumer reads it. The cycle calls it after dispatching and before
// recording and checkpointing, so that a crash can print a plan entry
// twice but never lose one; a Flush error fails every run of the call.
type Flusher interface {
	Flush(ctx context.Context) error
}

// PlatformClock is implemented by a DispatchFinder that knows its
// platform's clock (package trackerclock), reading it from the platform
// when it has not yet: ok is false when it cannot.
// An intent's time is on the tracker's clock; the lookup of its run asks
// for runs created since then on the platform's clock.
type PlatformClock interface {
	PlatformNow(ctx context.Context) (now time.Time, ok bool)
}

// RunTracker is implemented by outputs that know whether a run they
// started has ended (the local executor: its runs are this process's
// children).
type RunTracker interface {
	Ended(ref plan.Ref) bool
}
