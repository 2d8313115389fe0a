package poll

import (
	"context"
	"log/slog"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// Input is one configured poll input driver, ready for cycles (package
// controller runs them). The driver package builds it from its
// poll.input_drivers entry (its FromConfig, an InputFactory).
type Input interface {
	// PollDriver is what the cycle drives.
	PollDriver() Driver
	// Settings is the input's configuration entry (lock sizes,
	// concurrency, jitter, refresh interval).
	Settings() config.InputDriver
	// Account returns the id of the tool's own account on the tracker, for
	// the loop guard. Refused credentials are config.Invalid.
	Account(ctx context.Context) (string, error)
	// InputCapabilities is what the input can do beyond its cycles.
	InputCapabilities() InputCapabilities
}

// InputCapabilities is what an Input can do beyond its cycles, declared
// once by the input (Input.InputCapabilities), nil when it has not got it.
type InputCapabilities struct {
	State    StateSaver    // saves its state after each cycle
	Release  StateReleaser // gives its state file's claim back
	Refresh  LockRefresher // refreshes the locks of queued runs
	Feedback FeedbackInput // writes feedback on its items
}

// StateSaver is the capability of an input that keeps state in the state
// directory (package pollstate, loaded when the input is built): the
// controller calls SaveState after each of its cycles (not in a dry run).
// A failed save is logged by the input: the state is an optimisation only.
type StateSaver interface {
	SaveState()
}

// StateReleaser is the capability of an input that holds a claim on its
// state file (pollstate.Store.Claim): Poll gives it back when the
// controller is done, so that a later controller in the same process
// comes back as the poller the state names.
type StateReleaser interface {
	ReleaseState()
}

// InputEnv is what an InputFactory needs besides the configuration.
type InputEnv struct {
	Getenv   func(string) string
	Log      *slog.Logger
	PollerID string // this poller's id, written into the locks it takes
	// OnRequest, if set, observes every API request (metrics).
	OnRequest func(endpoint string, status int, d time.Duration)
	// Now is the host's clock (nil: time.Now). Each input corrects it by
	// its service's clock, read from the service's answers
	// (package trackerclock), before comparing the service's times.
	Now func() time.Time
	// State is the state directory (nil or "": none); each input keeps
	// its own file there (pollstate.Dir.For).
	State *pollstate.Dir
	// Entities reports whether some enabled harness lists system among its
	// entity sources (nil: none does), so that a driver reads what its
	// entity stage needs from its first cycle on.
	Entities func(system string) bool
}

// InputFactory builds the input driver of cfg.Poll.InputDrivers[index].
// A bad setting or missing credential is config.Invalid.
type InputFactory func(ctx context.Context, cfg *config.Config, index int, env InputEnv) (Input, error)

// LockRefresher is the capability of an input that rewrites the
// timestamps of poll locks this poller still holds (jirapoll's
// RefreshLocks).
type LockRefresher interface {
	RefreshLocks(ctx context.Context, locks []plan.PollLock) (refreshed, lost int, err error)
}

// FeedbackInput is the capability of an Input that can write feedback on its
// items (package feedback) through its own connection: its platform
// (event.SystemJira, SystemGitHub or SystemGitLab) and the writer.
type FeedbackInput interface {
	Feedback() (system string, w feedback.Writer)
}
