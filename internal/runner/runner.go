package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/periodic"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/sandbox"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// DefaultRefreshInterval is used when a run holds a poll lock and no
// refresh interval was configured.
const DefaultRefreshInterval = config.DefaultRefreshInterval

// teardownTimeout bounds the lock release after the agent ended (it runs
// even when the run was cancelled).
const teardownTimeout = 30 * time.Second

// Spec is one agent run: everything Run needs, already resolved and
// validated by the caller except Command.
type Spec struct {
	Harness string
	Command []string // harness run.command, or the command after `--`
	Timeout time.Duration
	Grace   time.Duration // SIGTERM→SIGKILL; 0 = DefaultGrace
	Event   *event.Event  // validated
	// Entity is the entity the harness's trigger saw (validated); nil for
	// an event-only run. It is written beside the event file and named to
	// the agent by FULLSEND_ENTITY_FILE.
	Entity   *entity.Entity
	Forge    string // config forge (default github)
	PollLock *plan.PollLock
	// Locker maintains the poll lock; nil when the run did not come from
	// polling.
	Locker          *Locker
	RefreshInterval time.Duration // 0 = DefaultRefreshInterval
	// RefreshTicks, when set, replaces the RefreshInterval ticker: each
	// value received is one refresh (tests drive the refresher with it).
	RefreshTicks <-chan time.Time
	EnvAllow     []string // harness run.env allow-list
	Getenv       func(string) string
	Dir          string // agent working directory; "" = current
	TempDir      string // parent of the private event directory; "" = system default
	// Stdout and Stderr receive the agent's output. They are written from
	// other goroutines than Log: when they share a sink with Log, it must
	// be safe for concurrent writes (an *os.File is).
	Stdout, Stderr io.Writer
	Signals        <-chan os.Signal // forwarded to the agent
	Log            *slog.Logger
	// Sandbox is the agent's identity (sandbox.Decide); the zero value
	// runs the agent as fullsend's user, as run.isolation none does.
	Sandbox sandbox.Plan
	// Steer delivers follow-ups into the run (docs/steering.md); nil: off.
	Steer *SteerSpec
	// Tether is the binary started as the agent's tether (Process.Tether).
	Tether string
}

// Run executes the run and returns how the agent ended; Result.ExitCode is
// the code fullsend should exit with (the agent's code, 128+n when the agent
// was killed by signal n, or ExitTimeout). err is non-nil when the agent was
// not started: *InputError (no command), *LostLockError (the lock was not ours
// before start), *StartError, an I/O error, or a cancellation (a signal
// received on Signals before the agent started).
//
// With a Locker, the lock is verified and marked running before the agent
// starts, refreshed every RefreshInterval while it runs (a refresh that
// finds another owner logs a warning and stops refreshing; the agent keeps
// running) and deleted at teardown if it still carries this run's id —
// whether the agent succeeded, failed, timed out or was signalled.
func Run(ctx context.Context, s Spec) (Result, error) {
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if len(s.Command) == 0 {
		return Result{}, inputErr("harness %q has no run.command and no command was given after --", s.Harness)
	}
	ef, err := writeEventFile(s.TempDir, s.Event)
	if err != nil {
		return Result{}, err
	}
	defer func() {
		if err := ef.Remove(); err != nil {
			log.Warn("remove event file", "path", ef.Path, "error", err.Error())
		}
	}()
	if err := ef.writeEntity(s.Entity); err != nil {
		return Result{}, err
	}
	key := scope.KeyOf(s.Harness, s.Event, s.Forge)
	env := AgentEnv(AgentContext{Harness: s.Harness, Event: s.Event, Forge: s.Forge, Key: key,
		PollLock: s.PollLock, EventFile: ef.Path, EntityFile: ef.EntityPath}, s.EnvAllow, s.Getenv)
	st, steerEnv, err := openSteering(s.Steer, ef.dir, log)
	if err != nil {
		return Result{}, err
	}
	env = append(env, steerEnv...)
	as, env, handBack, err := agentIdentity(s.Sandbox, s.Dir, ef.dir, env, log)
	if err != nil {
		return Result{}, err
	}
	defer handBack()
	if s.Locker != nil {
		if err := s.Locker.Acquire(ctx); err != nil {
			var we *writeError
			if errors.As(err, &we) {
				// The write may have landed: do not leave a lock without a run.
				ReleaseLock(ctx, s.Locker, log)
			}
			return Result{}, err
		}
		log.Info("poll lock verified and marked running", "issue", s.Locker.Issue, "property", s.Locker.Property)
		defer ReleaseLock(ctx, s.Locker, log)
		env = withAttribution(env, s.Locker.Claimed(), s.Harness)
	}

	// A signal that arrived while the lock was verified (a CI job being
	// cancelled) ends the run here: the agent is not started, and the
	// deferred release gives the lock back.
	select {
	case sig := <-s.Signals:
		log.Info("signal received before the agent started; not starting it", "signal", sig.String())
		return Result{}, fmt.Errorf("run cancelled by %s before the agent started", sig)
	default:
	}
	stopRefresh := func() {}
	if s.Locker != nil {
		stopRefresh = startRefresher(ctx, s.Locker, s.RefreshInterval, s.RefreshTicks, log)
	}
	log.Info("starting agent", "harness", s.Harness, "command", s.Command[0], "serialization_key", string(key))
	st.start(ctx, s.Timeout)
	res, err := Process{Command: s.Command, Env: env, Dir: s.Dir, Stdout: s.Stdout, Stderr: s.Stderr, Stdin: st.agentStdin(),
		Timeout: s.Timeout, Grace: s.Grace, Signals: s.Signals, Log: log, As: as, Tether: s.Tether}.Run(ctx)
	stopRefresh()
	st.finish(ctx, res)
	if err != nil {
		return Result{}, err
	}
	logFinished(log, s.Harness, res)
	if s.Locker != nil && res.ExitCode == 0 && !res.TimedOut && res.Signal == nil {
		recordSuccess(ctx, s.Locker, s.Harness, log)
	}
	return res, nil
}

// logFinished logs how the agent ended.
func logFinished(log *slog.Logger, harness string, res Result) {
	attrs := []any{"harness", harness, "exit_code", res.ExitCode}
	if res.TimedOut {
		attrs = append(attrs, "timed_out", true)
	}
	if res.Signal != nil {
		attrs = append(attrs, "signal", res.Signal.String())
	}
	log.Info("agent finished", attrs...)
}

// recordSuccess writes the success receipt of a run whose agent
// succeeded (Locker.RecordSuccess), before the deferred release of the
// lock, bounded like the release. A failure is logged: the entity stays
// due, and a later run repeats the work rather than skip it.
func recordSuccess(ctx context.Context, l *Locker, harness string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTimeout)
	defer cancel()
	r, written, err := l.RecordSuccess(ctx, harness)
	switch {
	case err != nil:
		log.Error("could not write the success receipt; the entity stays due", "issue", l.Issue, "harness", harness, "error", err.Error())
	case written:
		log.Info("success receipt written", "issue", l.Issue, "harness", harness, "version", r.Version, "run", r.Run, "attempts", r.Attempts)
	}
}

// RefreshOnly is `fullsend run --refresh-only`: one verification and
// refresh (the lock is marked running with this CI run recorded), nothing
// else. Errors as for Locker.Acquire.
func RefreshOnly(ctx context.Context, l *Locker) error { return l.Acquire(ctx) }

// ReleaseLock releases this run's share of the lock if it still carries
// this run's id (Locker.Release: deleted, or kept for other runs dispatched
// with it) and logs the outcome; it is the teardown of every run that held
// the lock, and of one that ends without starting its agent (a superseded
// GitLab pipeline). It is bounded by a timeout of its own and ignores ctx's
// cancellation.
func ReleaseLock(ctx context.Context, l *Locker, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTimeout)
	defer cancel()
	rel, err := l.Release(ctx)
	switch {
	case err != nil:
		log.Error("release poll lock", "issue", l.Issue, "property", l.Property, "error", err.Error())
	case rel == ReleaseDeleted:
		log.Info("poll lock released", "issue", l.Issue, "property", l.Property)
	case rel == ReleaseKept:
		log.Info("poll lock kept for other runs dispatched with it; this run's entry removed",
			"issue", l.Issue, "property", l.Property, "run", l.Run.Driver+"/"+l.Run.ID)
	default:
		log.Warn("poll lock not released: it no longer carries this run's id", "issue", l.Issue, "property", l.Property)
	}
}

// startRefresher refreshes l every interval (or on every value of ticks,
// when set) until the returned stop function is called (stop waits for
// the goroutine to end).
func startRefresher(ctx context.Context, l *Locker, every time.Duration, ticks <-chan time.Time, log *slog.Logger) (stop func()) {
	if every <= 0 {
		every = DefaultRefreshInterval
	}
	refresh := func(ctx context.Context) bool {
		ours, reason, err := l.Refresh(ctx)
		switch {
		case err != nil && errors.Is(err, context.Canceled):
			return false
		case err != nil:
			log.Warn("refresh poll lock failed; retrying at the next interval", "issue", l.Issue, "error", err.Error())
		case !ours:
			log.Warn("poll lock taken by another owner; refreshing stops, the agent keeps running",
				"issue", l.Issue, "property", l.Property, "reason", reason)
			return false
		default:
			log.Debug("poll lock refreshed", "issue", l.Issue)
		}
		return true
	}
	if ticks != nil {
		return periodic.OnTicks(ctx, ticks, nil, refresh)
	}
	return periodic.Every(ctx, every, refresh)
}
