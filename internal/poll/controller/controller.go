// Package controller is `fullsend poll` itself: the Controller loads the
// configuration and the harnesses, builds the configured poll inputs
// (poll.InputFactory), the output driver and the decision engine, and runs
// one poll cycle (cycle.Run) of every input, or cycles until stopped
// (Watch) under a per-cycle deadline. It reads each input's
// capabilities once (poll.InputCapabilities): its state saved after each
// cycle and given back at the end, its feedback, the refresh of the locks
// of runs an in-process executor queued; and from the driver's
// (poll.Capabilities) whether scheduled discovery runs (poll.Schedule).
package controller

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
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// ReleaseState gives back the inputs' claims on their state files
// (poll.StateReleaser); the process's exit does too.
func (c *Controller) ReleaseState() {
	for _, in := range c.inputs {
		if r := in.InputCapabilities().Release; r != nil {
			r.ReleaseState()
		}
	}
}

// OutputFactory builds the output driver called name (outputs.New).
type OutputFactory func(name string, cfg *config.Config, env output.Env) (output.Driver, error)

// Options configure a Controller: what `fullsend poll` and its
// subcommands were asked to do, and the factories of the drivers.
type Options struct {
	ConfigDir string
	Getenv    func(string) string
	Log       *slog.Logger
	// Inputs maps each poll input driver type to its factory.
	Inputs map[string]poll.InputFactory
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
	Observer  poll.Observer
	OnRequest func(endpoint string, status int, d time.Duration)
	// Sleep replaces the wait between watch cycles (tests).
	Sleep func(ctx context.Context, d time.Duration) error
	// OnQuarantine, when set, is told of every entity version scheduled
	// discovery gives up on (poll.Schedule.Notify).
	OnQuarantine func(ctx context.Context, q poll.EntityQuarantine)
}

// Controller runs `fullsend poll`: it loads the configuration, builds the
// configured input drivers, the output driver and the decision engine,
// and runs one cycle or, with Watch, cycles until stopped.
type Controller struct {
	o      Options
	cfg    *config.Config
	reg    *harness.Registry
	inputs []poll.Input
	// lockInput is the input that `fullsend run` uses for its lock
	// (config.Poll.LockInput), nil when it was not selected.
	lockInput poll.Input
	// pollerID is this poller's id (poll.InputEnv.PollerID); cadence spaces
	// its scheduled evaluations across cycles (entity.every).
	pollerID string
	cadence  *reconcile.Cadence
	// notifiers are the inputs' feedback notifiers (feedback.go).
	notifiers map[poll.Input]*feedback.Notifier
}

// CheckOptions reports the option combinations that cannot work, before
// anything is read: all are config.Invalid.
func CheckOptions(o Options) error {
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

// New loads the configuration and the enabled harnesses and
// builds the selected input drivers.
func New(ctx context.Context, o Options) (*Controller, error) {
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
	env := poll.InputEnv{Getenv: o.Getenv, Log: o.Log, PollerID: uuid.NewString(), OnRequest: o.OnRequest,
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
func (c *Controller) Inputs() []poll.Input { return c.inputs }

// LockInput is the input `fullsend run` uses to keep its poll lock
// (config.Poll.LockInput), or nil when it is not among the selected ones.
func (c *Controller) LockInput() poll.Input { return c.lockInput }

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
// credentials (poll.IsStop) are the user's configuration (config.Invalid).
func StopErr(err error) error {
	if err != nil && poll.IsStop(err) {
		return config.Invalid(err)
	}
	return err
}
