package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/status"
)

// statusOptions are the flags of `fullsend status`.
type statusOptions struct {
	inputDriver string
	issue       string
	format      string
	metricsURL  string
	limit       int
	watch       bool
	interval    time.Duration
	intervalSet bool // --interval was given
	terminal    bool // standard output is a terminal
}

func newStatusCmd(app *App, runF func(context.Context, *statusOptions) error) *cobra.Command {
	cmd, o := command(&cobra.Command{
		Use:   "status",
		Short: "Show what the pollers are doing: last cycle, locks, quarantined and deferred changes, cursor",
		Long: `Reads, never writes, what the pollers record: per configured poll input
driver the last cycle (from a poller's --metrics-url), the poll locks held
(phase, age, owner, runs, stale or not), quarantined, failing and deferred
changes, and the discovery cursor. It costs one Jira search per jira-poll
input, reported at the bottom. --issue KEY shows one work item: its lock,
lastCheck, the changes since and what the triggers would do with them (a
dry run: nothing is written or dispatched), and its recent runs.`,
		Example: `  fullsend status
  fullsend status --metrics-url http://127.0.0.1:9090/metrics
  fullsend status --issue PROJ-123
  fullsend status -o json | jq '.inputs[].locks'
  fullsend status --watch --interval 10s`,
		Args: noArgs,
	}, runF, app.runStatus)
	cmd.PreRun = func(c *cobra.Command, _ []string) {
		o.intervalSet = c.Flags().Changed("interval")
		o.terminal = isTerminal(app.Stdout)
	}
	f := cmd.Flags()
	f.StringVar(&o.inputDriver, "input-driver", "", "show only the input drivers of this type ("+english.Or(drivername.PollInputNames())+"); default all configured")
	f.StringVar(&o.issue, "issue", "", "also inspect this work item (a dry run of its changes), e.g. PROJ-123")
	f.StringVarP(&o.format, "output", "o", status.FormatTable, "result format: table or json")
	f.StringVar(&o.metricsURL, "metrics-url", "", "a poller's metrics endpoint for its last cycle, e.g. http://127.0.0.1:9090/metrics")
	f.IntVar(&o.limit, "limit", status.DefaultLimit, "candidates the one search reads (newest-updated first, at most 100)")
	f.BoolVar(&o.watch, "watch", false, "refresh until interrupted (in place on a terminal)")
	f.DurationVar(&o.interval, "interval", 5*time.Second, "wait between refreshes with --watch")
	completeValues(cmd, "input-driver", drivername.PollInputNames()...)
	completeValues(cmd, "output", status.FormatTable, status.FormatJSON)
	return cmd
}

func (app *App) runStatus(ctx context.Context, o *statusOptions) error {
	if o.intervalSet && !o.watch {
		return UserError(errors.New("--interval needs --watch"))
	}
	return status.Run(ctx, status.Options{
		ConfigDir: app.ConfigDir, Getenv: app.Getenv, Log: app.Log,
		InputDriver: o.inputDriver, Issue: o.issue, Format: o.format, MetricsURL: o.metricsURL, Limit: o.limit,
		Out: app.Stdout, Watch: o.watch, Interval: o.interval, Terminal: o.terminal,
	})
}
