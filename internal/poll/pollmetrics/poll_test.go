package pollmetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// gatherer is m's registry, which the tests read.
func gatherer(m *metrics.Metrics) prometheus.Gatherer { return m.Registerer().(prometheus.Gatherer) }

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
	m := metrics.New(time.Minute)
	o := New(m)
	observe := o.Cycles("gha-dispatch")
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
	if err := testutil.GatherAndCompare(gatherer(m), strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(o.p.cycleDuration, "fullsend_poll_cycle_duration_seconds"); n != 1 {
		t.Errorf("cycle duration series = %d, want 1", n)
	}
	if n := testutil.CollectAndCount(o.p.lastSuccess); n != 1 {
		t.Errorf("last success series = %d, want 1 (the good cycle)", n)
	}
	if h := m.Health(); h.LastError != "jira: HTTP 503" {
		t.Errorf("health last error %q, want the cycle's error", h.LastError)
	}
	if problems, err := testutil.GatherAndLint(gatherer(m), names...); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}
}

// Each scheduled dispatch's latency lands in the histogram of the output
// driver that accepted it.
func TestDispatchLatencyHistogram(t *testing.T) {
	m := metrics.New(time.Minute)
	observe := New(m).Cycles("gha-dispatch")
	observe(poll.CycleStats{Driver: "jira-poll",
		DispatchLatencies: []time.Duration{1500 * time.Millisecond, 90 * time.Second}})
	observe(poll.CycleStats{Driver: "jira-poll", Output: "local",
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
	if err := testutil.GatherAndCompare(gatherer(m), strings.NewReader(want), "fullsend_dispatch_latency_seconds"); err != nil {
		t.Fatal(err)
	}
}

// Without metrics, the hooks are nil so that the cycle skips them.
func TestNilMetricsGiveNilHooks(t *testing.T) {
	o := New(nil)
	if o.Cycles("json") != nil || o.RateBudget("jira") != nil {
		t.Fatal("nil metrics returned a hook")
	}
}
