// Package status answers "what is fullsend doing" for `fullsend status`:
// it reads, never writes, what the pollers record — the poll locks,
// lastCheck retry positions and intents, and quarantined changes on the
// work items, the poller's metrics endpoint, the discovery cursor — and
// renders one snapshot as kubectl-style tables or JSON, once or repeatedly
// (--watch). With an issue it adds a dry run of that item: the changes a
// cycle would detect and what the triggers would decide about them.
// docs/operations.md ("Status: what is it doing") is the user's view.
package status

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/jirakey"
)

// Formats of Options.Format.
const (
	FormatTable = "table"
	FormatJSON  = "json"
)

// DefaultLimit is how many candidates the one search reads.
const DefaultLimit = 100

// CursorReader reads the shared discovery cursor of the jira-poll input
// id through client (so its calls are counted); found is false when no
// poller wrote one yet or the cursor is off.
type CursorReader func(ctx context.Context, client *jira.Client, repo string, id config.InputDriver) (c Cursor, found bool, err error)

// Options configure Run.
type Options struct {
	ConfigDir   string
	Getenv      func(string) string
	Log         *slog.Logger
	InputDriver string // only inputs of this type; "" all
	Issue       string // also inspect this work item
	Format      string // FormatTable (default) or FormatJSON
	MetricsURL  string // a poller's /metrics; "" unknown
	Limit       int    // candidates read by the search (default DefaultLimit)
	Out         io.Writer
	// Watch repeats the snapshot on every tick of Ticker (default a
	// time.Ticker of Interval) until ctx ends; Terminal redraws in place.
	Watch    bool
	Interval time.Duration
	Terminal bool
	Ticker   func(d time.Duration) (<-chan time.Time, func())
	Now      func() time.Time
	// Cursor reads the discovery cursor (default: where the input's
	// cursor settings say it lives).
	Cursor CursorReader
	// HTTP fetches MetricsURL (default a client with a 5s timeout).
	HTTP *http.Client
}

// Run loads the configuration and prints one snapshot, or with Watch one
// per tick. Bad options and configuration are config.Invalid.
func Run(ctx context.Context, o Options) error {
	if err := o.defaults(); err != nil {
		return err
	}
	cfg, reg, err := loadDir(o)
	if err != nil {
		return err
	}
	s := &snapshotter{o: o, cfg: cfg, reg: reg}
	if err := s.checkInputs(); err != nil {
		return err
	}
	if o.Watch {
		return s.watch(ctx)
	}
	rep, err := s.snapshot(ctx, o.Now())
	if err != nil {
		return err
	}
	return s.render(rep)
}

// loadDir loads the configuration and the enabled harnesses.
func loadDir(o Options) (*config.Config, *harness.Registry, error) {
	return harness.LoadDir(o.ConfigDir, o.Getenv)
}

// defaults fills the zero options and checks the others.
func (o *Options) defaults() error {
	switch o.Format {
	case "", "text":
		o.Format = FormatTable
	case FormatTable, FormatJSON:
	default:
		return config.Invalid(fmt.Errorf("--output %q: want table or json", o.Format))
	}
	if o.InputDriver != "" && !slices.Contains(drivername.PollInputNames(), o.InputDriver) {
		return config.Invalid(fmt.Errorf("--input-driver %q: want %s", o.InputDriver, strings.Join(drivername.PollInputNames(), ", ")))
	}
	if o.Issue != "" && !jirakey.ValidIssue(o.Issue) {
		return config.Invalid(fmt.Errorf("--issue %q: not a Jira issue key (want e.g. PROJ-123)", o.Issue))
	}
	if o.MetricsURL != "" {
		if err := checkMetricsURL(o.MetricsURL); err != nil {
			return config.Invalid(err)
		}
	}
	if o.Watch && o.Interval <= 0 {
		return config.Invalid(fmt.Errorf("--interval %s: must be positive", o.Interval))
	}
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	if o.Cursor == nil {
		o.Cursor = readCursor
	}
	if o.Limit > DefaultLimit {
		return config.Invalid(fmt.Errorf("--limit %d: at most %d (one search page)", o.Limit, DefaultLimit))
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Ticker == nil {
		o.Ticker = func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		}
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 5 * time.Second}
	}
	return nil
}

// snapshotter takes snapshots of one loaded configuration.
type snapshotter struct {
	o   Options
	cfg *config.Config
	reg *harness.Registry
}

// checkInputs rejects a configuration without the selected inputs.
func (s *snapshotter) checkInputs() error {
	for _, id := range s.cfg.Poll.InputDrivers {
		if s.o.InputDriver == "" || id.Type == s.o.InputDriver {
			return nil
		}
	}
	want := "poll input"
	if s.o.InputDriver != "" {
		want = s.o.InputDriver
	}
	return config.Invalid(fmt.Errorf("%s: no %s driver under poll.input_drivers", s.cfg.File, want))
}

// snapshot collects one Report at now (every age is relative to it).
func (s *snapshotter) snapshot(ctx context.Context, now time.Time) (*Report, error) {
	rep := &Report{At: now.UTC(), Inputs: []Input{}}
	metrics := s.scrape(ctx)
	for i, id := range s.cfg.Poll.InputDrivers {
		if s.o.InputDriver != "" && id.Type != s.o.InputDriver {
			continue
		}
		in, calls, err := s.collect(ctx, i, metrics, rep)
		rep.APICalls += calls
		if err != nil {
			return nil, fmt.Errorf("poll.input_drivers[%d] (%s): %w", i, id.Type, err)
		}
		rep.Inputs = append(rep.Inputs, in)
	}
	return rep, nil
}

// render prints rep in the chosen format.
func (s *snapshotter) render(rep *Report) error {
	if s.o.Format == FormatJSON {
		return renderJSON(s.o.Out, rep)
	}
	return renderTable(s.o.Out, rep)
}

// errAuth marks credentials a service refused.
var errAuth = errors.New("credentials refused")

// fatal reports errors a retry cannot fix: configuration, credentials,
// the caller giving up.
func fatal(err error) bool {
	return config.IsInvalid(err) || errors.Is(err, context.Canceled)
}
