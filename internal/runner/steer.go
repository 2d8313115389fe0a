package runner

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// SteerSpec is a run's steering (docs/steering.md): nil when its harness
// does not opt in (`steer.enabled`) or nothing can be steered where it
// runs.
type SteerSpec struct {
	Settings harness.Steer
	// Source discovers and records the follow-ups (package steer's
	// platform packages, built by steerSource).
	Source steer.Source
	// Ordered: the source's pending run gives up a prefix (steer.Prefix).
	Ordered bool
	// Now is the platform's clock (follow-ups' received times); nil: the
	// host's.
	Now func() time.Time
	// Interval is the discovery cadence (0: steer.DefaultInterval); Ticks,
	// when set, replaces it (tests drive discovery with it).
	Interval time.Duration
	Ticks    <-chan time.Time
	// Kill stops the session at a kill point (tests; steer.Session.Kill).
	Kill func(point string) bool
}

// steering is one run's steering as Run drives it.
type steering struct {
	spec  *SteerSpec
	box   *steer.Mailbox
	sess  *steer.Session
	stdin *os.File // the agent's end of its standard input; nil without steer.stdin
	stop  func()
	log   *slog.Logger
}

// openSteering creates the mailbox in the run's private directory
// (before it is handed to the agent) and returns the variables that name
// it; nil without steering.
func openSteering(sp *SteerSpec, runDir string, log *slog.Logger) (*steering, []string, error) {
	if sp == nil {
		return nil, nil, nil
	}
	box, err := steer.CreateMailbox(runDir)
	if err != nil {
		return nil, nil, err
	}
	st := &steering{spec: sp, box: box, log: log, stop: func() {}}
	if sp.Settings.Stdin {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, nil, fmt.Errorf("steer: the agent's standard input: %w", err)
		}
		st.stdin = r
		box.WithStdin(w)
	}
	return st, []string{steer.EnvFile + "=" + box.Path, steer.EnvAckFile + "=" + box.AckPath}, nil
}

// start begins discovery as the agent starts, bounded by its timeout.
func (st *steering) start(ctx context.Context, timeout time.Duration) {
	if st == nil {
		return
	}
	now := st.spec.Now
	if now == nil {
		now = time.Now
	}
	lim := steer.Limits{Max: st.spec.Settings.Max, MinTimeLeft: st.spec.Settings.MinTimeLeft}
	if timeout > 0 {
		lim.Deadline = now().Add(timeout)
	}
	st.sess = &steer.Session{Source: st.spec.Source, Mailbox: st.box, Limits: lim, Ordered: st.spec.Ordered,
		Now: now, Log: st.log, Kill: st.spec.Kill}
	ticks := st.spec.Ticks
	var tk *time.Ticker
	if ticks == nil {
		every := st.spec.Interval
		if every <= 0 {
			every = steer.DefaultInterval
		}
		tk = time.NewTicker(every)
		ticks = tk.C
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { st.sess.Run(ctx, ticks) })
	st.stop = func() {
		cancel()
		wg.Wait()
		if tk != nil {
			tk.Stop()
		}
	}
}

// finish stops discovery and records what the agent took, when it
// exited 0 on its own; bounded like the lock's release.
func (st *steering) finish(ctx context.Context, res Result) {
	if st == nil {
		return
	}
	st.stop()
	st.box.Close()
	if st.stdin != nil {
		_ = st.stdin.Close()
	}
	if st.sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTimeout)
	defer cancel()
	ok := res.ExitCode == 0 && !res.TimedOut && res.Signal == nil
	done, err := st.sess.Finish(ctx, ok)
	if n := len(st.sess.Offered()); n > 0 {
		st.log.Info("steer: run summary", "offered", n, "recorded", len(done))
	}
	if err == nil && st.spec.Kill != nil {
		st.spec.Kill(steer.KillBeforeEnd) // a test's SIGKILL: it does not return
	}
}

// agentStdin is the agent's standard input: the steering pipe, or none.
func (st *steering) agentStdin() *os.File {
	if st == nil {
		return nil
	}
	return st.stdin
}
