// Package output defines the output-driver contract: how planned runs leave
// the core. Drivers live in sub-packages (jsonout, ghadispatch,
// gitlabpipeline, local), each with a FromConfig constructor; package
// drivers lists their names and capabilities and package outputs builds
// one by name, so a new driver plugs in without touching the core or the
// poll cycle.
package output

import (
	"context"
	"errors"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

// ErrCredentials is wrapped by a Result.Err when the platform refused the
// driver's credentials (HTTP 401): the operator's configuration, exit 2
// (docs/cli.md), for every forge alike.
var ErrCredentials = errors.New("credentials refused")

// ErrNotStarted is wrapped by a Result.Err when the run certainly did not
// start: the platform refused the request (httpx.Refusal: a 4xx other than
// 408 and 429), the request never left (no connection), or the driver
// refused the run before sending anything. A poller then forgets the
// run's dispatch intent at once and offers the change again at the next
// cycle, without asking the platform. Any other Err leaves the outcome
// unknown: the run may exist, and a poller finds out through its intent
// (docs/polling.md, "Delivery contract").
var ErrNotStarted = errors.New("the run was not started")

// Driver starts planned runs.
//
// Dispatch is called with the runs one decision or one poll step produced.
// It returns one Result per run, in order. A Result with Err == nil means
// the run was handed off (and Ref, when the platform gives one, says where);
// a non-nil Err means that run was not handed off, either certainly
// (ErrNotStarted) or possibly (any other error: the answer was not the
// platform's confirmed success). Drivers report success only for the
// platform's confirmed success, and never silently retry a request whose
// outcome is unknown.
type Driver interface {
	Name() string
	Dispatch(ctx context.Context, runs []plan.Run) []Result
}

// Result is the outcome of dispatching one run.
type Result struct {
	Run plan.Run
	Ref *plan.Ref // nil when the platform returns no run reference
	Err error
}

// Canceller is implemented by drivers that can cancel runs they started
// (used by `fullsend poll cancel`). Already finished runs are not an error.
type Canceller interface {
	Cancel(ctx context.Context, ref plan.Ref) (string, error) // returns a human-readable outcome
}

// Finisher is implemented by drivers that keep work in process (local) and
// must be waited for or drained before the process exits.
type Finisher interface {
	Close(ctx context.Context) error
}

// Waiter is implemented by drivers that hold accepted runs before starting
// them (local: runs queued for a free slot or behind an active run of
// their scope key). Waiting returns the poll locks of those runs, without
// duplicates, so that the poller can keep the locks fresh until the runs
// start and take them over; a run that has started is no longer listed.
// It must be cheap and safe for concurrent use.
type Waiter interface {
	Waiting() []plan.PollLock
}
