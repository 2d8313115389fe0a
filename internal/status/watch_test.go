package status

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollmetrics"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// fakeTicker delivers the given ticks, then closes its channel (which
// ends the watch loop); stopped records that the loop stopped it.
type fakeTicker struct {
	ticks   int
	stopped bool
	got     time.Duration
}

func (f *fakeTicker) ticker(d time.Duration) (<-chan time.Time, func()) {
	f.got = d
	c := make(chan time.Time, f.ticks)
	for i := 0; i < f.ticks; i++ {
		c <- t0.Add(time.Duration(i+1) * d)
	}
	close(c)
	return c, func() { f.stopped = true }
}

func TestWatchFrames(t *testing.T) {
	for _, tc := range []struct {
		name, golden string
		terminal     bool
	}{
		{"terminal redraws in place", "watch_terminal.golden", true},
		{"pipe prints snapshots", "watch_pipe.golden", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			key := w.issue("Locked")
			w.lock(key, poller, polllock.PhaseDispatched, 10*time.Second)
			var out bytes.Buffer
			o := w.options(&out)
			frames := []time.Time{t0, t0.Add(10 * time.Second)}
			n := 0
			o.Now = func() time.Time { // each frame reads the clock once
				t := frames[min(n, 1)]
				n++
				return t
			}
			ft := &fakeTicker{ticks: 1}
			o.Watch, o.Interval, o.Terminal, o.Ticker = true, 10*time.Second, tc.terminal, ft.ticker
			got, err := w.run(o)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, got)
			if !ft.stopped || ft.got != 10*time.Second {
				t.Errorf("ticker stopped %v, interval %s", ft.stopped, ft.got)
			}
			if c := strings.Count(got, "api calls: 2"); c != 2 {
				t.Errorf("%d frames, want 2", c)
			}
			if strings.Contains(got, clearHome) != tc.terminal {
				t.Errorf("clear-screen sequence present = %v, want %v", !tc.terminal, tc.terminal)
			}
		})
	}
}

func TestWatchStopsOnCancel(t *testing.T) {
	w := newWorld(t)
	var out bytes.Buffer
	o := w.options(&out)
	ctx, cancel := context.WithCancel(context.Background())
	tick := make(chan time.Time)
	o.Watch, o.Interval = true, time.Second
	o.Ticker = func(time.Duration) (<-chan time.Time, func()) { return tick, func() {} }
	o.Out = writerFunc(func(p []byte) (int, error) {
		if strings.Contains(string(p), "api calls") {
			cancel() // after the first frame
		}
		return out.Write(p)
	})
	if err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(out.String(), "api calls"); c != 1 {
		t.Errorf("%d frames", c)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestScrapeRealMetrics reads the series a real poller's metrics export.
func TestScrapeRealMetrics(t *testing.T) {
	m := metrics.New(time.Minute)
	pm := pollmetrics.New(m)
	obs := pm.Cycles("gha-dispatch")
	obs(poll.CycleStats{Driver: "jira-poll", Duration: 2 * time.Second})
	obs(poll.CycleStats{Driver: "jira-poll", Duration: 4 * time.Second, Error: "jira down"})
	pm.RateBudget("jira")(poll.CycleStats{RateBudget: poll.RateBudget{Known: true, Remaining: 77}})
	m.ObserveRequest("jira", "POST /rest/api/3/search/jql", 200, time.Millisecond)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	o := Options{MetricsURL: srv.URL + "/metrics", Now: time.Now}
	if err := o.defaults(); err != nil {
		t.Fatal(err)
	}
	s := &snapshotter{o: o}
	p, note := s.scrape(context.Background()).poller("jira-poll", time.Now())
	if p == nil {
		t.Fatalf("no poller: %s", note)
	}
	if p.CyclesOK != 1 || p.CyclesFailed != 1 || p.MeanDurationSec != 3 || p.APICalls != 1 ||
		p.BudgetRemaining == nil || *p.BudgetRemaining != 77 || p.LastSuccess == nil ||
		p.LastResult != "error" || p.LastError != "jira down" || p.LastCycle == nil {
		t.Errorf("poller %+v", p)
	}
	if p, note := s.scrape(context.Background()).poller("gitlab-poll", time.Now()); p != nil || note != "no gitlab-poll cycle yet" {
		t.Errorf("gitlab-poll: %+v %q", p, note)
	}
}

func TestScrapeUnreachable(t *testing.T) {
	srv := httptest.NewServer(nil)
	url := srv.URL + "/metrics"
	srv.Close()
	o := Options{MetricsURL: url}
	if err := o.defaults(); err != nil {
		t.Fatal(err)
	}
	p, note := (&snapshotter{o: o}).scrape(context.Background()).poller("jira-poll", t0)
	if p != nil || !strings.Contains(note, "unreachable") {
		t.Errorf("%+v %q", p, note)
	}
}

func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Format: "yaml"}, `--output "yaml": want table or json`},
		{Options{Issue: "proj 1"}, `--issue "proj 1": not a Jira issue key`},
		{Options{MetricsURL: "127.0.0.1:9090"}, `--metrics-url "127.0.0.1:9090": want an http(s) URL`},
		{Options{Watch: true}, `--interval 0s: must be positive`},
		{Options{Limit: 500}, `--limit 500: at most 100`},
		{Options{InputDriver: "jira"}, `--input-driver "jira": want`},
	} {
		err := tc.o.defaults()
		if !config.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.o, err, tc.want)
		}
	}
}

func TestNoLockDrivers(t *testing.T) {
	w := newWorld(t)
	gitlab := "    - type: gitlab-poll\n      connection:\n        base_url: http://127.0.0.1:1\n  output_driver:"
	w.editConfig(func(c string) string { return strings.Replace(c, "  output_driver:", gitlab, 1) })
	var out bytes.Buffer
	o := w.options(&out)
	o.MetricsURL = metricsServer(t, pollerMetrics, pollerHealth, 200)
	got, err := w.run(o)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	golden(t, "gitlab.golden", strings.ReplaceAll(got, strings.TrimSuffix(o.MetricsURL, "/metrics"), "http://poller.test"))

	out.Reset()
	o.InputDriver, o.Issue = "gitlab-poll", "PROJ-1"
	if _, err := w.run(o); err == nil || !strings.Contains(err.Error(), "only a jira-poll input records work items") {
		t.Errorf("--issue with gitlab-poll only: err = %v", err)
	}
}

// TestWatchKeepsGoingWhenJiraIsDown: a failed snapshot is shown in its
// frame and the loop goes on; nothing is written.
func TestWatchKeepsGoingWhenJiraIsDown(t *testing.T) {
	w := newWorld(t)
	w.sim.Close()
	// No retries: the test needs no backoff waits.
	w.editConfig(func(c string) string {
		return strings.Replace(c, "        base_url:", "        max_retries: 0\n        base_url:", 1)
	})
	var out bytes.Buffer
	o := w.options(&out)
	ft := &fakeTicker{ticks: 1}
	o.Watch, o.Interval, o.Ticker = true, time.Second, ft.ticker
	got, err := w.run(o)
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(got, "\nerror: "); c != 2 {
		t.Errorf("%d error frames, want 2:\n%s", c, got)
	}
}

func TestKillSwitchHoldsTheIssue(t *testing.T) {
	w := issueWorld(t)
	w.editConfig(func(c string) string { return "kill_switch: true\n" + c })
	var out bytes.Buffer
	o := w.options(&out)
	o.Issue = "PROJ-1"
	rep, err := w.snapshot(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Issue; len(r.WouldDispatch) != 0 || !strings.Contains(r.Held, "kill_switch") || r.Changes[0].Verdict != "killed" {
		t.Errorf("issue %+v", r)
	}
}

func TestMetricsURLPasswordNeverShown(t *testing.T) {
	srv := httptest.NewServer(nil)
	u := strings.Replace(srv.URL, "http://", "http://ops:hunter2@", 1) + "/metrics"
	srv.Close()
	o := Options{MetricsURL: u}
	if err := o.defaults(); err != nil {
		t.Fatal(err)
	}
	_, note := (&snapshotter{o: o}).scrape(context.Background()).poller("jira-poll", t0)
	bad := Options{MetricsURL: "ftp://ops:hunter2@host/metrics"}
	err := bad.defaults()
	if strings.Contains(note, "hunter2") || err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("note %q, err %v", note, err)
	}
}
