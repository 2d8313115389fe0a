package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/output/outputs"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/controller"
	"github.com/fullsend-dev/fullsend/internal/poll/githubpoll"
	"github.com/fullsend-dev/fullsend/internal/poll/gitlabpoll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollmetrics"
)

// watchSleep, when set, replaces the wait between watch cycles (tests).
var watchSleep func(ctx context.Context, d time.Duration) error

// pollInputs are the poll input drivers this build knows, by type.
var pollInputs = map[string]poll.InputFactory{drivername.JiraPoll: jirapoll.FromConfig, drivername.GitLabPoll: gitlabpoll.FromConfig,
	drivername.GitHubPoll: githubpoll.FromConfig}

// pollOptions are the flags of `fullsend poll` (persistent ones are shared
// with its subcommands).
type pollOptions struct {
	inputDriver  string
	outputDriver string
	dryRun       bool
	watch        bool
	interval     time.Duration
	intervalSet  bool // --interval was given
	cycleTimeout time.Duration
	metricsAddr  string
	stateDir     string
	pretty       prettyFlag
	indent       bool // resolved --pretty
}

// pollRunners are the runF seams of `poll` and its subcommands; nil ones
// do the real work.
type pollRunners struct {
	poll   func(context.Context, *pollOptions) error
	seed   func(context.Context, *pollSeedOptions) error
	cancel func(context.Context, *pollCancelOptions) error
}

func newPollCmd(app *App, r *pollRunners) *cobra.Command {
	if r == nil {
		r = &pollRunners{}
	}
	cmd, o := command(&cobra.Command{
		Use:   "poll",
		Short: "Poll input drivers (jira-poll) for changed work items and dispatch their runs",
		Long: `Runs one poll cycle per configured input driver (poll.input_drivers in
config.yaml) and exits: discover changed issues, lock up to N of them, turn
their changes into events, decide and coalesce runs, dispatch them and
record progress on the issues. With --watch, cycles repeat every --interval
until SIGINT/SIGTERM (failing cycles back off, capped at 10 intervals); a
signal finishes or rolls back the issue in flight and exits 0.
--dry-run reads and decides but writes nothing and prints the plan.`,
		Example: `  fullsend poll --dry-run
  fullsend poll --watch --interval 2m --metrics-addr 127.0.0.1:9090
  fullsend poll seed
  fullsend poll cancel --issue PROJ-123`,
		Args: noArgs,
	}, r.poll, app.runPoll)
	cmd.PreRun = func(c *cobra.Command, _ []string) {
		o.intervalSet = c.Flags().Changed("interval")
		o.indent = o.pretty.resolve(c, app.Stdout)
	}
	f := cmd.Flags()
	cmd.PersistentFlags().StringVar(&o.inputDriver, "input-driver", "", "use only the input drivers of this type ("+english.Or(drivername.PollInputNames())+"); default all configured")
	f.StringVar(&o.outputDriver, "output-driver", "", english.Or(drivername.OutputNames())+" (default: poll.output_driver from config.yaml)")
	f.BoolVar(&o.dryRun, "dry-run", false, "discover and evaluate without writing anything; print the runs that would be dispatched")
	f.BoolVar(&o.watch, "watch", false, "repeat cycles until SIGINT/SIGTERM")
	f.DurationVar(&o.interval, "interval", time.Minute, "wait between cycles with --watch")
	f.DurationVar(&o.cycleTimeout, "cycle-timeout", 0, "deadline of one cycle (default: poll.cycle_timeout, else 80% of --interval with --watch, else 4m)")
	f.StringVar(&o.stateDir, "state-dir", "", "directory of the pollers' state files, which make one-shot idle cycles cheap (default $XDG_CACHE_HOME/fullsend, else the user cache directory; \"none\": keep no state)")
	addPrettyFlag(cmd, &o.pretty)
	f.StringVar(&o.metricsAddr, "metrics-addr", "", "with --watch: serve Prometheus /metrics, /healthz and /livez on this address (e.g. 127.0.0.1:9090)")
	completeValues(cmd, "input-driver", drivername.PollInputNames()...)
	completeValues(cmd, "output-driver", drivername.OutputNames()...)
	cmd.AddCommand(newPollSeedCmd(app, o, r.seed), newPollCancelCmd(app, o, r.cancel))
	return cmd
}

// controllerOptions maps the poll flags to the controller's options.
func (app *App) controllerOptions(o *pollOptions) controller.Options {
	out := app.outputEnv()
	if o.indent && (o.outputDriver == "" || o.dryRun || drivername.PrintsPlan(o.outputDriver)) {
		out.Stdout = indentWriter{app.Stdout} // only whole JSON documents are indented
	}
	return controller.Options{
		ConfigDir: app.ConfigDir, Getenv: app.Getenv, Log: app.Log,
		Inputs: pollInputs, NewOutput: outputs.New,
		Output:      out,
		InputDriver: o.inputDriver, OutputDriver: o.outputDriver, DryRun: o.dryRun,
		Watch: o.watch, Interval: o.interval, CycleTimeout: o.cycleTimeout, MetricsAddr: o.metricsAddr,
		StateDir: o.stateDir, Sleep: watchSleep,
	}
}

// pollObserver records every cycle's metrics, and the rate-limit budget
// its input's platform last reported under that platform's name.
func pollObserver(m *metrics.Metrics) poll.Observer {
	o := pollmetrics.New(m)
	cycles := o.Cycles("")
	budgets := map[string]poll.Observer{drivername.JiraPoll: o.RateBudget("jira"),
		drivername.GitHubPoll: o.RateBudget("github"), drivername.GitLabPoll: o.RateBudget("gitlab")}
	return func(s poll.CycleStats) {
		cycles(s)
		if budget := budgets[s.Driver]; budget != nil {
			budget(s)
		}
	}
}

func (app *App) runPoll(ctx context.Context, o *pollOptions) error {
	if o.intervalSet && !o.watch {
		return UserError(errors.New("--interval needs --watch"))
	}
	co := app.controllerOptions(o)
	if err := controller.CheckOptions(co); err != nil {
		return err
	}
	if o.metricsAddr != "" {
		m := metrics.New(o.interval)
		co.Observer = pollObserver(m)
		co.OnRequest = m.RequestObserver("jira")
		co.Output.Metrics = m.Registerer()
		stop, err := app.serveMetrics(o.metricsAddr, m)
		if err != nil {
			return err
		}
		defer stop()
	}
	err := controller.Poll(ctx, co)
	if err == nil && o.watch {
		// The one line a stopped watch prints: why, and that it was clean.
		app.Log.Info("poll --watch stopped; the cycle under way finished or rolled back", "reason", context.Cause(ctx).Error())
		return nil
	}
	var sig Signal
	if err == nil && !o.watch && errors.As(context.Cause(ctx), &sig) {
		// One cycle cut short: it rolled back what it had not
		// dispatched, and says so with 128+signal (docs/cli.md).
		return fmt.Errorf("poll cycle %s; the locks of undispatched items were released", sig)
	}
	return err
}

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
