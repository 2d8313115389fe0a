// Package scenario runs fullsend poll cycles in process against the Jira
// and GitHub emulators on a fake clock, with the metrics wired as
// `fullsend poll --metrics-addr` wires them, and scrapes them once per
// simulated minute: the data of the dashboard picture in
// docs/operations.md and the series the dashboard test checks against.
package scenario

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/deploy/grafana/promql"
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/outputs"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/poll/pollmetrics"
)

const minute = time.Minute

// Start is where the scenario's clock starts.
var Start = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// Options shape a scenario; zero fields take the defaults.
type Options struct {
	Minutes int    // simulated minutes, one cycle of every poller each (40)
	Pollers int    // concurrent pollers sharing one metrics registry (2)
	Issues  int    // work items in the Jira project (16)
	Seed    uint64 // drives the comments and the pollers' choices
}

// Run plays the scenario and returns a scrape before the first minute and
// one at the end of every minute.
func Run(ctx context.Context, o Options) ([]promql.Sample, error) {
	o = withDefaults(o)
	clk := fakeclock.New(Start)
	w, err := newWorld(clk, o.Issues)
	if err != nil {
		return nil, err
	}
	defer w.close()
	cfg, reg, err := harness.LoadDir(w.dir, w.getenv)
	if err != nil {
		return nil, err
	}
	m := metrics.NewClock(minute, clk.Now)
	pm := pollmetrics.New(m)
	cycles, budget := pm.Cycles(""), pm.RateBudget("jira")
	observer := func(s poll.CycleStats) { cycles(s); budget(s) }
	eng, err := core.New(core.Options{Config: cfg, Harnesses: reg, BotIDs: []string{bot},
		Breaker: core.NewBreakerClock(cfg.Limits.RunsPerScopePerHour, clk.Now)})
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.DiscardHandler)
	out, err := outputs.New(cfg.Poll.OutputDriver, cfg, output.Env{Getenv: w.getenv, Stdout: io.Discard, Stderr: io.Discard, Log: quiet})
	if err != nil {
		return nil, err
	}
	var pollers []pollcycle.Options
	for i := 0; i < o.Pollers; i++ {
		po, err := w.poller(cfg, i, m, poll.CoreDecider(eng))
		if err != nil {
			return nil, err
		}
		po.Output, po.Observer, po.Rand = out, observer, rand.New(rand.NewPCG(o.Seed, uint64(i)))
		pollers = append(pollers, po)
	}
	return w.play(ctx, o, m, pollers)
}

func withDefaults(o Options) Options {
	if o.Minutes <= 0 {
		o.Minutes = 40
	}
	if o.Pollers <= 0 {
		o.Pollers = 2
	}
	if o.Issues <= 0 {
		o.Issues = 16
	}
	return o
}

// play runs the minutes: the script's changes, a cycle of every poller
// at once, the runs that ended, a scrape.
func (w *world) play(ctx context.Context, o Options, m *metrics.Metrics, pollers []pollcycle.Options) ([]promql.Sample, error) {
	rng := rand.New(rand.NewPCG(o.Seed, 99))
	first, err := scrape(m, w.clk.Now())
	if err != nil {
		return nil, err
	}
	samples := []promql.Sample{first}
	for i := 0; i < o.Minutes && ctx.Err() == nil; i++ {
		at := Start.Add(time.Duration(i) * minute)
		w.clk.AdvanceTo(at)
		w.script(i, rng)
		var wg sync.WaitGroup
		for _, po := range pollers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = pollcycle.Run(ctx, po) // failures are what the metrics show
			}()
		}
		wg.Wait()
		w.finishRuns()
		w.clk.AdvanceTo(at.Add(minute - time.Second))
		s, err := scrape(m, w.clk.Now())
		if err != nil {
			return nil, err
		}
		samples = append(samples, s)
	}
	return samples, ctx.Err()
}

// poller builds poller i's Jira client and driver from the configuration,
// as jirapoll.FromConfig does, on the scenario's clock.
func (w *world) poller(cfg *config.Config, i int, m *metrics.Metrics, d poll.Decider) (pollcycle.Options, error) {
	id := cfg.Poll.InputDrivers[0]
	jo, err := config.JiraOptions(id, w.getenv, nil)
	if err != nil {
		return pollcycle.Options{}, err
	}
	jo.OnRequest, jo.Now, jo.Sleep = m.RequestObserver("jira"), w.clk.Now, w.clk.Sleep
	client, err := jira.New(jo)
	if err != nil {
		return pollcycle.Options{}, err
	}
	drv, err := jirapoll.New(jirapoll.Options{API: client, Usage: jirapoll.UsageOf(client),
		SiteURL: id.Connection.BaseURL, Repo: cfg.Repo, Project: id.Project, Queries: id.Queries,
		N: id.Lock.N, StaleThreshold: id.Lock.StaleThreshold, PollerID: pollerID(i), Now: w.clk.Now})
	if err != nil {
		return pollcycle.Options{}, err
	}
	return pollcycle.Options{Driver: drv, Core: d, Validate: (*event.Event).Validate, N: id.Lock.N,
		JitterMin: 500 * time.Millisecond, JitterMax: 1500 * time.Millisecond,
		Sleep: w.clk.Sleep, Now: w.clk.Now}, nil
}

func pollerID(i int) string { return "00000000-0000-4000-8000-00000000000" + string(rune('1'+i)) }

// scrape reads m's /metrics as the samples of time t.
func scrape(m *metrics.Metrics, t time.Time) (promql.Sample, error) {
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	series, err := promql.FromText(rec.Body)
	return promql.Sample{T: t, Series: series}, err
}
