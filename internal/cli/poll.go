package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/periodic"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
)

func init() { register(newPollCmd) }

type pollOptions struct {
	inputDriver  string
	outputDriver string
	dryRun       bool
	watch        bool
	interval     time.Duration
	metricsAddr  string
}

func newPollCmd(app *App) *cobra.Command {
	o := &pollOptions{}
	cmd := &cobra.Command{
		Use:   "poll",
		Short: "Poll input drivers (jira-poll) for changed work items and dispatch their runs",
		Long: `Runs one poll cycle per configured input driver (poll.input_drivers in
config.yaml) and exits: discover changed issues, lock up to N of them, turn
their changes into events, decide and coalesce runs, dispatch them and
record progress on the issues. With --watch, cycles repeat every --interval
until SIGINT/SIGTERM (failing cycles back off, capped at 10 intervals); a
signal finishes or rolls back the issue in flight and exits 0.
--dry-run reads and decides but writes nothing and prints the plan.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("interval") && !o.watch {
				return UserError(errors.New("--interval needs --watch"))
			}
			return runPoll(cmd.Context(), app, o)
		},
	}
	f := cmd.Flags()
	cmd.PersistentFlags().StringVar(&o.inputDriver, "input-driver", "", "use only the input drivers of this type (jira-poll); default all configured")
	f.StringVar(&o.outputDriver, "output-driver", "", "output driver (default: poll.output_driver from config.yaml)")
	f.BoolVar(&o.dryRun, "dry-run", false, "discover and evaluate without writing anything; print the runs that would be dispatched")
	f.BoolVar(&o.watch, "watch", false, "repeat cycles until SIGINT/SIGTERM")
	f.DurationVar(&o.interval, "interval", time.Minute, "wait between cycles with --watch")
	f.StringVar(&o.metricsAddr, "metrics-addr", "", "with --watch: serve Prometheus /metrics and /healthz on this address (e.g. 127.0.0.1:9090)")
	cmd.AddCommand(newPollSeedCmd(app, o), newPollCancelCmd(app, o))
	return cmd
}

// pollInput is one configured poll input driver, ready to use.
type pollInput struct {
	cfg    config.InputDriver
	client *jira.Client
	drv    *jirapoll.Driver
}

// pollSetup loads the configuration and builds the selected input drivers.
func (app *App) pollSetup(ctx context.Context, only string, onRequest func(string, int, time.Duration)) (*config.Config, *harness.Registry, []pollInput, error) {
	if only != "" && only != jirapoll.Name {
		return nil, nil, nil, UserError(fmt.Errorf("--input-driver %q: want %s", only, jirapoll.Name))
	}
	cfg, reg, err := harness.LoadDir(app.ConfigDir, app.Getenv)
	if err != nil {
		return nil, nil, nil, UserError(err)
	}
	pollerID := uuid.NewString()
	var ins []pollInput
	for i, id := range cfg.Poll.InputDrivers {
		if id.Type != jirapoll.Name || (only != "" && id.Type != only) {
			continue
		}
		in, err := app.newJiraPoll(ctx, cfg, id, pollerID, onRequest)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("poll.input_drivers[%d]: %w", i, err)
		}
		ins = append(ins, in)
	}
	if len(ins) == 0 {
		return nil, nil, nil, UserError(fmt.Errorf("%s: no %s input driver under poll.input_drivers", cfg.File, jirapoll.Name))
	}
	return cfg, reg, ins, nil
}

func (app *App) newJiraPoll(ctx context.Context, cfg *config.Config, id config.InputDriver, pollerID string, onRequest func(string, int, time.Duration)) (pollInput, error) {
	if err := id.Connection.CheckConnection(); err != nil {
		return pollInput{}, UserError(err)
	}
	if len(id.Queries) == 0 {
		return pollInput{}, UserError(errors.New("jira-poll: no queries configured"))
	}
	token := app.Getenv(id.Connection.TokenEnv)
	if token == "" {
		return pollInput{}, UserError(fmt.Errorf("jira-poll: $%s is empty: it must hold the Jira API token", id.Connection.TokenEnv))
	}
	client, err := jira.New(jira.Options{BaseURL: id.Connection.BaseURL, Email: app.Getenv(id.Connection.EmailEnv),
		Token: token, RPS: id.RateLimit.RPS, Burst: id.RateLimit.Burst, Logger: app.Log, OnRequest: onRequest})
	if err != nil {
		return pollInput{}, UserError(err)
	}
	drv, err := jirapoll.New(jirapoll.Options{
		API: client, Usage: func() poll.Usage {
			return poll.Usage{Calls: client.CallsTotal(), RateLimitWaits: client.RateLimitWaits()}
		},
		SiteURL: id.Connection.BaseURL, Repo: cfg.Repo, Project: id.Project, Queries: id.Queries,
		M: id.Lock.M, N: id.Lock.N, StaleThreshold: id.Lock.StaleThreshold, Concurrency: id.Concurrency,
		PollerID: pollerID, Log: app.Log,
	})
	if err != nil {
		return pollInput{}, UserError(err)
	}
	return pollInput{cfg: id, client: client, drv: drv}, nil
}

// pollErr maps cycle errors to exit codes: rejected queries and refused
// credentials are the user's configuration (2), the rest runtime (1).
func pollErr(err error) error {
	if err != nil && poll.IsStop(err) {
		return UserError(err)
	}
	return err
}

// decider adapts the core engine to the poll cycle.
type decider struct{ e *core.Engine }

func (d decider) Decide(ev *event.Event) poll.Decision {
	dec := d.e.Decide(ev)
	d.e.LogDecision(dec)
	return poll.Decision{Verdict: dec.Verdict, Reason: dec.Reason, Runs: dec.Runs}
}

func (d decider) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return d.e.Admit(runs) }

func runPoll(ctx context.Context, app *App, o *pollOptions) error {
	if o.watch && o.interval <= 0 {
		return UserError(fmt.Errorf("--interval %s: must be positive", o.interval))
	}
	if o.metricsAddr != "" && !o.watch {
		return UserError(errors.New("--metrics-addr needs --watch"))
	}
	if o.outputDriver != "" && !knownOutput(o.outputDriver) {
		return UserError(fmt.Errorf("--output-driver %q: want one of %v", o.outputDriver, outputNames))
	}
	var m *metrics.Metrics
	var onRequest func(string, int, time.Duration)
	if o.metricsAddr != "" {
		m = metrics.New(o.interval)
		onRequest = m.RequestObserver("jira")
		stop, err := app.serveMetrics(o.metricsAddr, m)
		if err != nil {
			return err
		}
		defer stop()
	}
	cfg, reg, ins, err := app.pollSetup(ctx, o.inputDriver, onRequest)
	if err != nil {
		return err
	}
	var bots []string
	for _, in := range ins {
		me, err := in.client.Myself(ctx)
		if err != nil {
			if jira.IsAuth(err) {
				return UserError(fmt.Errorf("jira-poll: %s refused the credentials ($%s/$%s): %w",
					in.cfg.Connection.BaseURL, in.cfg.Connection.EmailEnv, in.cfg.Connection.TokenEnv, err))
			}
			return fmt.Errorf("jira-poll: reading the tool's own account: %w", err)
		}
		bots = append(bots, me.AccountID)
	}
	eng, err := core.New(core.Options{Config: cfg, Harnesses: reg, Log: app.Log,
		Breaker: core.NewBreaker(cfg.Limits.RunsPerScopePerHour), BotIDs: bots})
	if err != nil {
		return UserError(err)
	}
	outName := o.outputDriver
	if outName == "" {
		outName = cfg.Poll.OutputDriver
	}
	if o.dryRun {
		outName = "json"
	}
	// A plan printer writes its document when closed: each cycle gets its
	// own, so that every cycle prints one array ([] when empty) as it ends
	// instead of all plans at exit.
	perCycle := printsPlan(outName)
	var out output.Driver
	if !perCycle {
		if out, err = app.newOutput(ctx, outName, cfg); err != nil {
			return err
		}
	}
	cycle := func(ctx context.Context) (err error) {
		out := out
		if perCycle {
			if out, err = app.newOutput(ctx, outName, cfg); err != nil {
				return err
			}
			defer func() {
				if cerr := closeOutput(context.WithoutCancel(ctx), out); err == nil {
					err = cerr
				}
			}()
		}
		if cfg.KillSwitch {
			app.Log.Warn("kill_switch is on: no poll cycle")
			return nil
		}
		var planned []plan.Run
		var errs []error
		for _, in := range ins {
			res, err := poll.Run(ctx, poll.Options{
				Driver: in.drv, Core: decider{eng}, Output: out, Validate: (*event.Event).Validate,
				N: in.cfg.Lock.N, Concurrency: in.cfg.Concurrency,
				JitterMin: in.cfg.Lock.JitterMin, JitterMax: in.cfg.Lock.JitterMax,
				DryRun: o.dryRun, Log: app.Log, Observer: m.PollObserver(outName),
			})
			planned = append(planned, res.Planned...)
			if err != nil {
				errs = append(errs, err)
			} else if n := res.Stats.DispatchesFailed; n > 0 {
				errs = append(errs, fmt.Errorf("%s: %d dispatches failed; the next cycle retries them", in.drv.Name(), n))
			}
		}
		if o.dryRun {
			for _, r := range out.Dispatch(ctx, planned) {
				if r.Err != nil {
					errs = append(errs, r.Err)
				}
			}
		}
		return errors.Join(errs...)
	}
	stopRefresh := func() {}
	if w, ok := out.(output.Waiter); ok && !o.dryRun {
		// Runs an in-process executor holds before starting them are
		// refreshed by no `fullsend run` yet: keep their locks fresh, with
		// the first jira-poll entry (the one `fullsend run` uses), until
		// the executor is closed.
		stopRefresh = refreshWaiting(ctx, w, ins[0].drv, ins[0].cfg.Lock.RefreshInterval, app.Log)
	}
	if o.watch {
		err = poll.Watch(ctx, poll.WatchOptions{Interval: o.interval, Log: app.Log}, cycle)
	} else {
		err = cycle(ctx)
	}
	if !perCycle {
		// Runs handed to an in-process executor carry changes already
		// checkpointed in lastCheck: finish them all, even after a stop
		// signal, rather than drop them (docs/local.md, Shutdown).
		if cerr := closeOutput(context.WithoutCancel(ctx), out); err == nil {
			err = cerr
		}
	}
	stopRefresh()
	return pollErr(err)
}

// lockRefresher rewrites the timestamps of poll locks this poller still
// holds (jirapoll.Driver.RefreshLocks).
type lockRefresher interface {
	RefreshLocks(ctx context.Context, locks []plan.PollLock) (refreshed, lost int, err error)
}

// refreshWaiting refreshes, every interval until the returned stop is
// called (stop waits for the goroutine to end), the poll locks of the runs
// w accepted but has not started, so that a run queued for longer than
// lock.stale_threshold still holds its lock when it starts. It outlives
// ctx's cancellation: after a stop signal the executor is still closed.
func refreshWaiting(ctx context.Context, w output.Waiter, r lockRefresher, every time.Duration, log *slog.Logger) (stop func()) {
	if every <= 0 {
		every = config.DefaultRefreshInterval
	}
	return periodic.Every(ctx, every, func(ctx context.Context) bool {
		locks := w.Waiting()
		if len(locks) == 0 {
			return true
		}
		n, lost, err := r.RefreshLocks(ctx, locks)
		attrs := []any{"waiting", len(locks), "refreshed", n, "lost", lost}
		if err != nil && ctx.Err() == nil {
			log.Warn("refreshing the poll locks of queued runs", append(attrs, "error", err.Error())...)
			return true
		}
		log.Info("poll locks of queued runs refreshed", attrs...)
		return true
	})
}

// printsPlan reports whether an output driver prints the plan.
func printsPlan(name string) bool { return name == "json" || name == "gha-matrix" }

// serveMetrics serves m on addr until the returned stop is called.
func (app *App) serveMetrics(addr string, m *metrics.Metrics) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, UserError(fmt.Errorf("--metrics-addr %q: %w", addr, err))
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // returns ErrServerClosed on Close
	app.Log.Info("serving metrics", "addr", ln.Addr().String())
	return func() { srv.Close() }, nil
}
