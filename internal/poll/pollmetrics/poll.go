// Package pollmetrics is the poll cycles' Prometheus series, registered
// on a poller's metrics (package metrics) by the component whose reports
// they turn into series: every field of poll.CycleStats with a series,
// the discovery cursor's, the entity stage's and the rate-limit budget
// the tracker last reported; each cycle also tells the poller's health
// (/healthz, /livez) that it ended.
package pollmetrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// pollMetrics are the series of poll cycles. Every count comes from the
// field of poll.CycleStats with the same meaning; see docs/operations.md
// (Metrics and health) for the list.
type pollMetrics struct {
	cycles        *prometheus.CounterVec
	cycleDuration *prometheus.HistogramVec
	candidates    *prometheus.CounterVec
	eligible      *prometheus.CounterVec
	locks         *prometheus.CounterVec
	events        *prometheus.CounterVec
	eventsDropped *prometheus.CounterVec
	itemsFailed   *prometheus.CounterVec
	quarantined   *prometheus.CounterVec
	scheduled     *prometheus.CounterVec
	runs          *prometheus.CounterVec
	dispatches    *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	waits         *prometheus.CounterVec
	lastSuccess   *prometheus.GaugeVec
	remaining     *prometheus.GaugeVec
	m             *metrics.Metrics // its health hears of every cycle
	cursor        *cursorMetrics
	entity        *entityMetrics
}

// Observers are the poll cycles' series on a poller's metrics, registered
// by New, and the cycle hooks that feed them.
type Observers struct{ p *pollMetrics }

// New registers the poll cycles' series on m's registry (once per m);
// nil when m is nil (no metrics).
func New(m *metrics.Metrics) *Observers {
	if m == nil {
		return nil
	}
	return &Observers{newPollMetrics(m.Registerer(), m)}
}

func newPollMetrics(reg prometheus.Registerer, m *metrics.Metrics) *pollMetrics {
	p := &pollMetrics{
		cycles:        metrics.Counter(reg, "poll_cycles_total", "Poll cycles by input driver and result (ok, error).", "driver", "result"),
		cycleDuration: metrics.Histogram(reg, "poll_cycle_duration_seconds", "Poll cycle wall time.", 0.05, "driver"),
		candidates:    metrics.Counter(reg, "poll_candidates_total", "Work items returned by discovery.", "driver"),
		eligible:      metrics.Counter(reg, "poll_eligible_total", "Candidates that were unlocked (or stale) and changed.", "driver"),
		locks:         metrics.Counter(reg, "poll_locks_total", "Lock operations by outcome (attempted, acquired, lost, stale_removed).", "driver", "outcome"),
		events:        metrics.Counter(reg, "poll_events_total", "Changes detected and turned into events.", "driver"),
		eventsDropped: metrics.Counter(reg, "poll_events_dropped_total", "Changes that started no run, by reason (bot, invalid, denied, no_match).", "driver", "reason"),
		itemsFailed:   metrics.Counter(reg, "poll_items_failed_total", "Items skipped after a per-item error (retried next cycle).", "driver"),
		quarantined: metrics.Counter(reg, "poll_changes_quarantined_total",
			"Changes given up on (invalid event, or a dispatch that kept failing), recorded on the item.", "driver"),
		scheduled: metrics.Counter(reg, "poll_scheduled_total",
			"Scheduled discovery, by outcome (evaluated, due, retry, quarantined, swept).", "driver", "outcome"),
		runs: metrics.Counter(reg, "runs_total",
			"Runs by outcome (matched, coalesced, rate_limited: deferred by the circuit breaker and retried later).", "driver", "outcome"),
		dispatches: metrics.Counter(reg, "dispatches_total",
			"Runs handed to an output driver, by result (scheduled, failed, recovered: an interrupted dispatch found on the platform).",
			"output_driver", "result"),
		latency: metrics.Histogram(reg, "dispatch_latency_seconds",
			"Time from a change to the output driver accepting its run, by output driver.", 1, "output_driver"),
		waits: metrics.Counter(reg, "rate_limit_waits_total", "Times a client waited for its rate limiter or a Retry-After.", "driver"),
		lastSuccess: metrics.Gauge(reg, "poll_last_success_timestamp_seconds",
			"Unix time of the last successful poll cycle.", "driver"),
		remaining: metrics.Gauge(reg, "api_rate_limit_remaining",
			"Rate-limit budget the API last reported remaining (X-RateLimit-Remaining).", "api"),
		m:      m,
		cursor: newCursorMetrics(reg),
		entity: newEntityMetrics(reg),
	}
	return p
}

// Cycles returns the hook that records every poll cycle (for
// pollcycle.Options.Observer) of a poller dispatching to the output
// driver named output (the one a cycle reports in CycleStats.Output
// wins); nil when o is nil (no metrics).
func (o *Observers) Cycles(output string) poll.Observer {
	if o == nil {
		return nil
	}
	return func(s poll.CycleStats) {
		out := output
		if s.Output != "" {
			out = s.Output
		}
		o.p.observe(s, out)
	}
}

// RateBudget returns a cycle hook (for pollcycle.Options.Observer, after
// Cycles) that sets fullsend_api_rate_limit_remaining{api} to the budget
// the cycle's tracker last reported; cycles without one leave it alone.
// nil when o is nil (no metrics).
func (o *Observers) RateBudget(api string) poll.Observer {
	if o == nil {
		return nil
	}
	return func(s poll.CycleStats) {
		if s.RateBudget.Known {
			o.p.remaining.WithLabelValues(api).Set(float64(s.RateBudget.Remaining))
		}
	}
}

// observe records one cycle.
func (p *pollMetrics) observe(s poll.CycleStats, output string) {
	d := s.Driver
	result := "ok"
	if s.Error != "" {
		result = "error"
	}
	p.cycles.WithLabelValues(d, result).Inc()
	p.cycleDuration.WithLabelValues(d).Observe(s.Duration.Seconds())
	p.candidates.WithLabelValues(d).Add(float64(s.Candidates))
	p.eligible.WithLabelValues(d).Add(float64(s.Eligible))
	addEach(p.locks, d, map[string]int{"attempted": s.LocksAttempted, "acquired": s.LocksAcquired,
		"lost": s.LocksLost, "stale_removed": s.LocksStaleRemoved})
	p.events.WithLabelValues(d).Add(float64(s.Events))
	addEach(p.eventsDropped, d, map[string]int{"bot": s.EventsBot, "invalid": s.EventsInvalid,
		"denied": s.EventsDenied, "no_match": s.EventsNoMatch})
	p.itemsFailed.WithLabelValues(d).Add(float64(s.ItemsFailed))
	p.quarantined.WithLabelValues(d).Add(float64(s.ChangesQuarantined))
	addEach(p.scheduled, d, map[string]int{"evaluated": s.ScheduledEvaluated, "due": s.ScheduledDue,
		"retry": s.ScheduledRetries, "quarantined": s.ScheduledQuarantined, "swept": s.ScheduledSwept})
	addEach(p.runs, d, map[string]int{"matched": s.RunsMatched, "coalesced": s.RunsCoalesced,
		"rate_limited": s.RunsRateLimited})
	addEach(p.dispatches, output, map[string]int{"scheduled": s.DispatchesScheduled, "failed": s.DispatchesFailed,
		"recovered": s.DispatchesRecovered})
	for _, l := range s.DispatchLatencies {
		p.latency.WithLabelValues(output).Observe(l.Seconds())
	}
	p.waits.WithLabelValues(d).Add(float64(s.RateLimitWaits))
	p.cursor.observe(s)
	p.entity.observe(s)
	if now, ok := p.m.CycleEnded(s.Error); ok {
		p.lastSuccess.WithLabelValues(d).Set(float64(now.Unix()))
	}
}

// addEach adds each count to the series labelled first and its key.
func addEach(c *prometheus.CounterVec, first string, counts map[string]int) {
	for second, n := range counts {
		c.WithLabelValues(first, second).Add(float64(n))
	}
}
