package poll

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// Input is one configured poll input driver, ready for cycles. The driver
// package builds it from its poll.input_drivers entry (its FromConfig, an
// InputFactory).
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

// ReleaseState gives back the inputs' claims on their state files
// (StateReleaser); the process's exit does too.
func (c *Controller) ReleaseState() {
	for _, in := range c.inputs {
		if r := in.InputCapabilities().Release; r != nil {
			r.ReleaseState()
		}
	}
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

// OutputFactory builds the output driver called name (outputs.New).
type OutputFactory func(name string, cfg *config.Config, env output.Env) (output.Driver, error)

// ControllerOptions configure a Controller: what `fullsend poll` and its
// subcommands were asked to do, and the factories of the drivers.
type ControllerOptions struct {
	ConfigDir string
	Getenv    func(string) string
	Log       *slog.Logger
	// Inputs maps each poll input driver type to its factory.
	Inputs map[string]InputFactory
	// NewOutput builds output drivers.
	NewOutput OutputFactory
	// Output is the environment of the output drivers (streams, Getenv, Log).
	Output output.Env

	InputDriver  string // use only the inputs of this type; "" all
	OutputDriver string // "" means poll.output_driver
	DryRun       bool   // decide, write nothing, print the plan
	Watch        bool   // repeat cycles until ctx is cancelled
	Interval     time.Duration
	// CycleTimeout bounds each cycle (0: poll.cycle_timeout, else the
	// default, see Controller.CycleTimeout).
	CycleTimeout time.Duration
	MetricsAddr  string // with Watch: metrics are served (checked here, served by the caller)
	// StateDir is --state-dir (pollstate.Resolve: "" the default
	// directory, pollstate.None no state).
	StateDir string
	// Observer receives each cycle's stats and OnRequest observes every
	// API request of the inputs (metrics); both may be nil.
	Observer  Observer
	OnRequest func(endpoint string, status int, d time.Duration)
	// Sleep replaces the wait between watch cycles (tests).
	Sleep func(ctx context.Context, d time.Duration) error
	// OnQuarantine, when set, is told of every entity version scheduled
	// discovery gives up on (Schedule.Notify).
	OnQuarantine func(ctx context.Context, q EntityQuarantine)
}

// Controller runs `fullsend poll`: it loads the configuration, builds the
// configured input drivers, the output driver and the decision engine,
// and runs one cycle or, with Watch, cycles until stopped.
type Controller struct {
	o      ControllerOptions
	cfg    *config.Config
	reg    *harness.Registry
	inputs []Input
	// lockInput is the input that `fullsend run` uses for its lock
	// (config.Poll.LockInput), nil when it was not selected.
	lockInput Input
	// pollerID is this poller's id (InputEnv.PollerID); cadence spaces
	// its scheduled evaluations across cycles (entity.every).
	pollerID string
	cadence  *reconcile.Cadence
	// notifiers are the inputs' feedback notifiers (feedback.go).
	notifiers map[Input]*feedback.Notifier
}

// CheckOptions reports the option combinations that cannot work, before
// anything is read: all are config.Invalid.
func CheckOptions(o ControllerOptions) error {
	switch {
	case o.InputDriver != "" && !slices.Contains(drivername.PollInputNames(), o.InputDriver):
		return config.Invalid(fmt.Errorf("--input-driver %q: want %s", o.InputDriver, strings.Join(drivername.PollInputNames(), ", ")))
	case o.Watch && o.Interval <= 0:
		return config.Invalid(fmt.Errorf("--interval %s: must be positive", o.Interval))
	case o.CycleTimeout < 0:
		return config.Invalid(fmt.Errorf("--cycle-timeout %s: must be positive", o.CycleTimeout))
	case o.Watch && o.CycleTimeout > o.Interval:
		return config.Invalid(fmt.Errorf("--cycle-timeout %s: must not exceed --interval %s, or a cycle could run into the next one", o.CycleTimeout, o.Interval))
	case o.MetricsAddr != "" && !o.Watch:
		return config.Invalid(errors.New("--metrics-addr needs --watch"))
	case o.OutputDriver != "":
		if _, ok := drivername.LookupOutput(o.OutputDriver); !ok {
			return config.Invalid(fmt.Errorf("--output-driver %q: want one of %v", o.OutputDriver, drivername.OutputNames()))
		}
	}
	return nil
}

// NewController loads the configuration and the enabled harnesses and
// builds the selected input drivers.
func NewController(ctx context.Context, o ControllerOptions) (*Controller, error) {
	if err := CheckOptions(o); err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	cfg, reg, err := harness.LoadDir(o.ConfigDir, o.Getenv)
	if err != nil {
		return nil, err
	}
	c := &Controller{o: o, cfg: cfg, reg: reg}
	env := InputEnv{Getenv: o.Getenv, Log: o.Log, PollerID: uuid.NewString(), OnRequest: o.OnRequest,
		State:    pollstate.Open(pollstate.Resolve(o.StateDir, o.Getenv), o.Log, nil),
		Entities: func(system string) bool { return len(reg.EntityHarnesses(system)) > 0 }}
	c.pollerID = env.PollerID
	lock, _ := cfg.Poll.LockInput()
	for i, id := range cfg.Poll.InputDrivers {
		newInput, ok := o.Inputs[id.Type]
		if !ok || (o.InputDriver != "" && id.Type != o.InputDriver) {
			continue
		}
		in, err := newInput(ctx, cfg, i, env)
		if err != nil {
			return nil, fmt.Errorf("poll.input_drivers[%d]: %w", i, err)
		}
		c.inputs = append(c.inputs, in)
		if i == lock {
			c.lockInput = in
		}
	}
	if len(c.inputs) == 0 {
		return nil, config.Invalid(fmt.Errorf("%s: no %s input driver under poll.input_drivers", cfg.File, c.wanted()))
	}
	return c, nil
}

// wanted names the input driver types the options select.
func (c *Controller) wanted() string {
	if c.o.InputDriver != "" {
		return c.o.InputDriver
	}
	return drivername.JiraPoll
}

// Config is the loaded configuration.
func (c *Controller) Config() *config.Config { return c.cfg }

// Inputs are the selected input drivers, in configuration order.
func (c *Controller) Inputs() []Input { return c.inputs }

// LockInput is the input `fullsend run` uses to keep its poll lock
// (config.Poll.LockInput), or nil when it is not among the selected ones.
func (c *Controller) LockInput() Input { return c.lockInput }

// OutputName is the output driver a run of the controller uses: the
// option, else poll.output_driver; a dry run prints the plan as json.
func (c *Controller) OutputName() string {
	switch {
	case c.o.DryRun:
		return drivername.JSON
	case c.o.OutputDriver != "":
		return c.o.OutputDriver
	}
	return c.cfg.Poll.OutputDriver
}

// NewOutput builds the output driver called name.
func (c *Controller) NewOutput(name string) (output.Driver, error) {
	return c.o.NewOutput(name, c.cfg, c.o.Output)
}

// StopErr maps cycle errors for exit codes: rejected queries and refused
// credentials (IsStop) are the user's configuration (config.Invalid).
func StopErr(err error) error {
	if err != nil && IsStop(err) {
		return config.Invalid(err)
	}
	return err
}
