package metrics

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/controller"
)

func scrape(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

// cycle is a simulated cycle whose counts all differ, so that a count
// copied into the wrong series shows.
var cycle = poll.CycleStats{Driver: "jira-poll", Duration: 300 * time.Millisecond,
	Candidates: 50, Eligible: 9, LocksAttempted: 8, LocksAcquired: 7, LocksLost: 1, LocksStaleRemoved: 2,
	Events: 20, EventsBot: 3, EventsInvalid: 4, EventsDenied: 5, EventsNoMatch: 6,
	RunsMatched: 11, RunsCoalesced: 12, RunsRateLimited: 13,
	DispatchesScheduled: 10, DispatchesFailed: 14, RateLimitWaits: 15,
	ItemsFailed: 16, ChangesQuarantined: 17, DispatchesRecovered: 18}

// The exported series after one good and one failed cycle: names, labels
// (input driver for the cycle, output driver for dispatches) and values.
func TestPollSeries(t *testing.T) {
	m := New(time.Minute)
	observe := m.PollObserver("gha-dispatch")
	observe(cycle)
	observe(poll.CycleStats{Driver: "jira-poll", Error: "jira: HTTP 503"})
	want := `
# HELP fullsend_dispatches_total Runs handed to an output driver, by result (scheduled, failed, recovered: an interrupted dispatch found on the platform).
# TYPE fullsend_dispatches_total counter
fullsend_dispatches_total{output_driver="gha-dispatch",result="failed"} 14
fullsend_dispatches_total{output_driver="gha-dispatch",result="recovered"} 18
fullsend_dispatches_total{output_driver="gha-dispatch",result="scheduled"} 10
# HELP fullsend_poll_candidates_total Work items returned by discovery.
# TYPE fullsend_poll_candidates_total counter
fullsend_poll_candidates_total{driver="jira-poll"} 50
# HELP fullsend_poll_changes_quarantined_total Changes given up on (invalid event, or a dispatch that kept failing), recorded on the item.
# TYPE fullsend_poll_changes_quarantined_total counter
fullsend_poll_changes_quarantined_total{driver="jira-poll"} 17
# HELP fullsend_poll_cycles_total Poll cycles by input driver and result (ok, error).
# TYPE fullsend_poll_cycles_total counter
fullsend_poll_cycles_total{driver="jira-poll",result="error"} 1
fullsend_poll_cycles_total{driver="jira-poll",result="ok"} 1
# HELP fullsend_poll_eligible_total Candidates that were unlocked (or stale) and changed.
# TYPE fullsend_poll_eligible_total counter
fullsend_poll_eligible_total{driver="jira-poll"} 9
# HELP fullsend_poll_events_dropped_total Changes that started no run, by reason (bot, invalid, denied, no_match).
# TYPE fullsend_poll_events_dropped_total counter
fullsend_poll_events_dropped_total{driver="jira-poll",reason="bot"} 3
fullsend_poll_events_dropped_total{driver="jira-poll",reason="denied"} 5
fullsend_poll_events_dropped_total{driver="jira-poll",reason="invalid"} 4
fullsend_poll_events_dropped_total{driver="jira-poll",reason="no_match"} 6
# HELP fullsend_poll_events_total Changes detected and turned into events.
# TYPE fullsend_poll_events_total counter
fullsend_poll_events_total{driver="jira-poll"} 20
# HELP fullsend_poll_items_failed_total Items skipped after a per-item error (retried next cycle).
# TYPE fullsend_poll_items_failed_total counter
fullsend_poll_items_failed_total{driver="jira-poll"} 16
# HELP fullsend_poll_locks_total Lock operations by outcome (attempted, acquired, lost, stale_removed).
# TYPE fullsend_poll_locks_total counter
fullsend_poll_locks_total{driver="jira-poll",outcome="acquired"} 7
fullsend_poll_locks_total{driver="jira-poll",outcome="attempted"} 8
fullsend_poll_locks_total{driver="jira-poll",outcome="lost"} 1
fullsend_poll_locks_total{driver="jira-poll",outcome="stale_removed"} 2
# HELP fullsend_rate_limit_waits_total Times a client waited for its rate limiter or a Retry-After.
# TYPE fullsend_rate_limit_waits_total counter
fullsend_rate_limit_waits_total{driver="jira-poll"} 15
# HELP fullsend_runs_total Runs by outcome (matched, coalesced, rate_limited: deferred by the circuit breaker and retried later).
# TYPE fullsend_runs_total counter
fullsend_runs_total{driver="jira-poll",outcome="coalesced"} 12
fullsend_runs_total{driver="jira-poll",outcome="matched"} 11
fullsend_runs_total{driver="jira-poll",outcome="rate_limited"} 13
`
	names := []string{"fullsend_dispatches_total", "fullsend_poll_candidates_total", "fullsend_poll_cycles_total",
		"fullsend_poll_eligible_total", "fullsend_poll_events_dropped_total", "fullsend_poll_events_total",
		"fullsend_poll_items_failed_total", "fullsend_poll_changes_quarantined_total",
		"fullsend_poll_locks_total", "fullsend_rate_limit_waits_total", "fullsend_runs_total"}
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.poll.cycleDuration, "fullsend_poll_cycle_duration_seconds"); n != 1 {
		t.Errorf("cycle duration series = %d, want 1", n)
	}
	if n := testutil.CollectAndCount(m.poll.lastSuccess); n != 1 {
		t.Errorf("last success series = %d, want 1 (the good cycle)", n)
	}
	if h := m.Health(); h.LastError != "jira: HTTP 503" {
		t.Errorf("health last error %q, want the cycle's error", h.LastError)
	}
	if problems, err := testutil.GatherAndLint(m.reg, names...); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}
}

func TestRequestSeries(t *testing.T) {
	m := New(time.Minute)
	m.RequestObserver("jira")("POST /rest/api/3/search/jql", 200, 40*time.Millisecond)
	m.RequestObserver("jira")("POST /rest/api/3/search/jql", 429, time.Millisecond)
	want := `
# HELP fullsend_api_requests_total Outbound API requests by system, endpoint template and status.
# TYPE fullsend_api_requests_total counter
fullsend_api_requests_total{endpoint="POST /rest/api/3/search/jql",status="200",system="jira"} 1
fullsend_api_requests_total{endpoint="POST /rest/api/3/search/jql",status="429",system="jira"} 1
`
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(want), "fullsend_api_requests_total"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.api.duration); n != 1 {
		t.Errorf("request duration series = %d, want 1", n)
	}
}

// Without metrics, the hooks are nil so that the components skip them.
func TestNilMetricsGiveNilHooks(t *testing.T) {
	var m *Metrics
	if m.PollObserver("json") != nil || m.RequestObserver("jira") != nil {
		t.Fatal("nil metrics returned a hook")
	}
}

func TestHandlerServesMetrics(t *testing.T) {
	m := New(time.Minute)
	m.PollObserver("json")(poll.CycleStats{Driver: "jira-poll"})
	code, body := scrape(t, m.Handler(), "/metrics")
	if code != 200 || !strings.Contains(body, `fullsend_poll_cycles_total{driver="jira-poll",result="ok"} 1`) ||
		!strings.Contains(body, "go_goroutines") {
		t.Fatalf("status %d body:\n%.800s", code, body)
	}
}

func TestHealthz(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewClock(time.Minute, func() time.Time { return now })
	observe := m.PollObserver("json")
	cases := []struct {
		step   func()
		code   int
		reason string
	}{
		{func() {}, 200, "no successful cycle yet"},
		{func() { observe(poll.CycleStats{Driver: "d", Error: "connection refused"}) }, 503, "the last one failed"},
		{func() { now = now.Add(4 * time.Minute) }, 503, "no successful cycle yet"},
		{func() { observe(poll.CycleStats{Driver: "d"}) }, 200, "succeeded recently"},
		{func() { now = now.Add(2 * time.Minute); observe(poll.CycleStats{Driver: "d", Error: "x"}) }, 200, "succeeded recently"},
		{func() { now = now.Add(2 * time.Minute) }, 503, "no successful cycle in 3 intervals"},
	}
	for i, c := range cases {
		c.step()
		code, body := scrape(t, m.Handler(), "/healthz")
		var h Health
		if err := json.Unmarshal([]byte(body), &h); err != nil {
			t.Fatal(err)
		}
		if code != c.code || !strings.Contains(h.Reason, c.reason) {
			t.Fatalf("step %d: %d %+v", i, code, h)
		}
	}
}

// Each scheduled dispatch's latency lands in the histogram of the output
// driver that accepted it.
func TestDispatchLatencyHistogram(t *testing.T) {
	m := New(time.Minute)
	m.PollObserver("gha-dispatch")(poll.CycleStats{Driver: "jira-poll",
		DispatchLatencies: []time.Duration{1500 * time.Millisecond, 90 * time.Second}})
	m.PollObserver("gha-dispatch")(poll.CycleStats{Driver: "jira-poll", Output: "local",
		DispatchLatencies: []time.Duration{3 * time.Second}})
	want := `
# HELP fullsend_dispatch_latency_seconds Time from a change to the output driver accepting its run, by output driver.
# TYPE fullsend_dispatch_latency_seconds histogram
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="1"} 0
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="2"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="4"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="8"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="16"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="32"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="64"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="128"} 2
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="256"} 2
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="512"} 2
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="1024"} 2
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="2048"} 2
fullsend_dispatch_latency_seconds_bucket{output_driver="gha-dispatch",le="+Inf"} 2
fullsend_dispatch_latency_seconds_sum{output_driver="gha-dispatch"} 91.5
fullsend_dispatch_latency_seconds_count{output_driver="gha-dispatch"} 2
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="1"} 0
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="2"} 0
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="4"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="8"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="16"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="32"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="64"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="128"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="256"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="512"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="1024"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="2048"} 1
fullsend_dispatch_latency_seconds_bucket{output_driver="local",le="+Inf"} 1
fullsend_dispatch_latency_seconds_sum{output_driver="local"} 3
fullsend_dispatch_latency_seconds_count{output_driver="local"} 1
`
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(want), "fullsend_dispatch_latency_seconds"); err != nil {
		t.Fatal(err)
	}
}

// /livez follows the poll loop, not the tracker: failing cycles keep it
// up (while /healthz goes down), and only a loop that stops ending cycles
// for LiveIntervals intervals fails it.
func TestLivez(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewClock(time.Minute, func() time.Time { return now })
	observe := m.PollObserver("json")
	limit := LiveIntervals * time.Minute
	fail := func() { observe(poll.CycleStats{Driver: "d", Error: "jira: HTTP 503"}) }
	cases := []struct {
		name    string
		step    func()
		live    int
		healthz int
		reason  string
	}{
		{"start", func() {}, 200, 200, "turning"},
		{"first cycle late but within the limit", func() { now = now.Add(limit) }, 200, 503, "turning"},
		{"no cycle since the start", func() { now = now.Add(time.Second) }, 503, 503, "no cycle ended since the start"},
		{"a failed cycle turns the loop", fail, 200, 503, "turning"},
		{"a tracker outage: failures at the backoff cap", func() {
			for range 5 {
				now = now.Add(controller.MaxBackoffFactor * time.Minute)
				fail()
			}
		}, 200, 503, "turning"},
		{"a success", func() { now = now.Add(time.Minute); observe(poll.CycleStats{Driver: "d"}) }, 200, 200, "turning"},
		{"just within the limit", func() { now = now.Add(limit) }, 200, 503, "turning"},
		{"stuck loop", func() { now = now.Add(time.Second) }, 503, 503, "no cycle ended in 12 intervals"},
	}
	for _, c := range cases {
		c.step()
		code, body := scrape(t, m.Handler(), "/livez")
		var l Live
		if err := json.Unmarshal([]byte(body), &l); err != nil {
			t.Fatalf("%s: %v: %s", c.name, err, body)
		}
		if code != c.live || l.OK != (c.live == 200) || !strings.Contains(l.Reason, c.reason) {
			t.Errorf("%s: /livez %d %+v, want %d %q", c.name, code, l, c.live, c.reason)
		}
		if got := m.Live(); got != l {
			t.Errorf("%s: Live() %+v, /livez %+v", c.name, got, l)
		}
		if code, _ := scrape(t, m.Handler(), "/healthz"); code != c.healthz {
			t.Errorf("%s: /healthz %d, want %d", c.name, code, c.healthz)
		}
	}
}
