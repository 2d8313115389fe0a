// Package local is the `local` output driver: it runs agents on this
// machine, each run a child process of `fullsend run`, through the
// preserve-and-coalesce queue of package coalesce (docs/local.md):
// one active run per scope key, one pending slot holding the newest run,
// different keys in parallel up to MaxParallel.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fullsend-dev/fullsend/internal/coalesce"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/steer/localsteer"
)

// DriverName is the name of this driver (`--output-driver local`).
const DriverName = drivername.Local

// Defaults for Options.
const (
	DefaultMaxParallel = 4
	DefaultGrace       = 30 * time.Second
	DefaultKillDelay   = 10 * time.Second
	// DefaultTeardown is how long a terminated child `fullsend run` gets,
	// after KillDelay, to end: its agent is killed by then, and it still
	// releases the poll lock (bounded by 30s in package runner).
	DefaultTeardown = 35 * time.Second
)

// ErrClosed is returned for runs dispatched after Close.
var ErrClosed = errors.New("local executor is shutting down")

// Job is one run handed to a Launcher. Seq is the driver-wide sequence
// number reported as the run's Ref.ID; the child process gets it as
// $FULLSEND_LOCAL_RUN_ID so that it records and releases the same entry in
// the poll lock's runs.
type Job struct {
	Seq uint64
	Run plan.Run
	// SteerFile is the key's pending file for steering (steer.go); ""
	// without one.
	SteerFile string
}

// Launcher executes one job to completion and reports how it ended. It is
// called from the queue's goroutines, at most once at a time per scope
// key. ctx is cancelled when the shutdown grace period has run out; the
// launcher must then stop the run and return promptly.
type Launcher interface {
	Launch(ctx context.Context, job Job) error
}

// Options configure the driver. Zero values take the defaults.
type Options struct {
	MaxParallel int           // runs at once across keys; default 4 (config outputs.local.max_parallel)
	Grace       time.Duration // how long Close lets active runs finish after a shutdown; default 30s
	// The child process settings, used when Launcher is nil.
	ConfigDir  string        // passed as --config-dir; default .fullsend
	Executable string        // the fullsend binary; default os.Executable()
	TempDir    string        // where event files are written; default os.TempDir()
	KillDelay  time.Duration // SIGTERM to SIGKILL of the agent on termination; default 10s
	// Teardown is the time a terminated child gets after KillDelay to
	// release its poll lock before it is killed itself; default 35s.
	Teardown time.Duration
	Stdout   io.Writer    // child stdout, each line prefixed; default os.Stderr
	Stderr   io.Writer    // child stderr, each line prefixed; default os.Stderr
	Launcher Launcher     // replaces the child-process launcher (tests)
	Log      *slog.Logger // default: discard
	// LogFormat and LogLevel are passed to each child as --log-format and
	// --log-level ("": not passed), so that a child whose stderr is a pipe
	// logs in the parent's format rather than its pipe default (json).
	LogFormat, LogLevel string
	// Metrics is where the child-process launcher registers
	// fullsend_run_isolation_total and counts the isolation each child
	// reports (docs/operations.md); nil: not counted.
	Metrics prometheus.Registerer
	// After returns a channel that receives once d has passed; it times
	// Grace and the kill of a terminated child. Default time.After;
	// tests inject a clock.
	After func(d time.Duration) <-chan time.Time
}

// Driver is the local output driver. It implements output.Driver,
// output.Finisher and output.Waiter. Dispatch returns as soon as runs are queued; Close must
// be called before the process exits.
type Driver struct {
	q     *coalesce.Queue[scope.Key, Job]
	log   *slog.Logger
	grace time.Duration
	kill  time.Duration // KillDelay + Teardown: termination until SIGKILL
	after func(time.Duration) <-chan time.Time
	seq   atomic.Uint64
	ended endedRuns
	steer *localsteer.Dir // the pending files of steering; nil: none
}

var (
	_ output.Driver   = (*Driver)(nil)
	_ output.Finisher = (*Driver)(nil)
	_ output.Waiter   = (*Driver)(nil)
)

// New builds a driver. It fails only when the fullsend executable cannot
// be determined.
func New(o Options) (*Driver, error) {
	o.MaxParallel = positiveOr(o.MaxParallel, DefaultMaxParallel)
	o.Grace = positiveOr(o.Grace, DefaultGrace)
	o.KillDelay = positiveOr(o.KillDelay, DefaultKillDelay)
	o.Teardown = positiveOr(o.Teardown, DefaultTeardown)
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.After == nil {
		o.After = time.After
	}
	l := o.Launcher
	if l == nil {
		pl, err := newProcessLauncher(o)
		if err != nil {
			return nil, err
		}
		l = pl
	}
	d := &Driver{log: o.Log, grace: o.Grace, kill: o.KillDelay + o.Teardown, after: o.After}
	if sd, err := localsteer.NewDir(""); err == nil {
		d.steer = sd
	} else {
		o.Log.Warn("local: no directory for steering's pending files; runs are not steered", "error", err.Error())
	}
	d.q = coalesce.New(o.MaxParallel,
		func(ctx context.Context, k scope.Key, j Job) error { d.steerStarted(k); return l.Launch(ctx, j) },
		coalesce.Options[scope.Key, Job]{OnDone: d.done})
	return d, nil
}

// positiveOr is v, or def when v is not positive (an option left unset).
func positiveOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Name returns "local".
func (d *Driver) Name() string { return DriverName }

// Dispatch queues each run under its scope key and returns at once. A run
// that starts now, waits for a slot, or fills (or replaces) its key's
// pending slot is a success: it will run. Its Ref is
// {Driver: "local", ID: "<sequence number>"}. Runs without a harness,
// event or key, and runs after Close, fail without being queued.
func (d *Driver) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	res := make([]output.Result, len(runs))
	for i, r := range runs {
		res[i].Run = r
		switch {
		case ctx.Err() != nil:
			res[i].Err = fmt.Errorf("local: run %s: %w", r.Key, ctx.Err())
			continue
		case r.Harness == "" || r.Event == nil || r.Key == "":
			res[i].Err = fmt.Errorf("local: run %q: missing harness, event or scope key", r.Key)
			continue
		}
		seq := d.seq.Add(1)
		out := d.q.Submit(r.Key, Job{Seq: seq, Run: r, SteerFile: d.steerFile(r.Key)})
		if !out.Accepted() {
			res[i].Err = fmt.Errorf("local: run %s for harness %s: %w", r.Key, r.Harness, ErrClosed)
			continue
		}
		d.notePending(out, r)
		d.log.Info("local run queued", "harness", r.Harness, "key", string(r.Key),
			"seq", seq, "outcome", out.String())
		res[i].Ref = &plan.Ref{Driver: DriverName, ID: strconv.FormatUint(seq, 10)}
	}
	return res
}

// done logs the end of every run and remembers it (Ended).
func (d *Driver) done(key scope.Key, j Job, err error) {
	d.ended.add(j.Seq)
	if err != nil {
		d.log.Error("local run failed", "harness", j.Run.Harness, "key", string(key),
			"seq", j.Seq, "error", err.Error())
		return
	}
	d.log.Info("local run finished", "harness", j.Run.Harness, "key", string(key), "seq", j.Seq)
}

// Waiting implements output.Waiter: the poll locks, without duplicates,
// of the accepted runs that have not started (waiting for a slot or
// behind their key's active run). Runs without a poll lock are left out.
// A run listed here may start right after the call returns.
func (d *Driver) Waiting() []plan.PollLock {
	var out []plan.PollLock
	for _, it := range d.q.PendingItems() {
		pl := it.Item.Run.PollLock
		if pl == nil || slices.Contains(out, *pl) {
			continue
		}
		out = append(out, *pl)
	}
	return out
}

// Stats reports the queue's counters.
func (d *Driver) Stats() coalesce.Stats { return d.q.Stats() }
