package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

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
	health        *health
	cursor        *cursorMetrics
	entity        *entityMetrics
}

func newPollMetrics(reg prometheus.Registerer, h *health) *pollMetrics {
	p := &pollMetrics{
		cycles:        counter(reg, "poll_cycles_total", "Poll cycles by input driver and result (ok, error).", "driver", "result"),
		cycleDuration: histogram(reg, "poll_cycle_duration_seconds", "Poll cycle wall time.", 0.05, "driver"),
		candidates:    counter(reg, "poll_candidates_total", "Work items returned by discovery.", "driver"),
		eligible:      counter(reg, "poll_eligible_total", "Candidates that were unlocked (or stale) and changed.", "driver"),
		locks:         counter(reg, "poll_locks_total", "Lock operations by outcome (attempted, acquired, lost, stale_removed).", "driver", "outcome"),
		events:        counter(reg, "poll_events_total", "Changes detected and turned into events.", "driver"),
		eventsDropped: counter(reg, "poll_events_dropped_total", "Changes that started no run, by reason (bot, invalid, denied, no_match).", "driver", "reason"),
		itemsFailed:   counter(reg, "poll_items_failed_total", "Items skipped after a per-item error (retried next cycle).", "driver"),
		quarantined: counter(reg, "poll_changes_quarantined_total",
			"Changes given up on (invalid event, or a dispatch that kept failing), recorded on the item.", "driver"),
		scheduled: counter(reg, "poll_scheduled_total",
			"Scheduled discovery, by outcome (evaluated, due, retry, quarantined, swept).", "driver", "outcome"),
		runs: counter(reg, "runs_total",
			"Runs by outcome (matched, coalesced, rate_limited: deferred by the circuit breaker and retried later).", "driver", "outcome"),
		dispatches: counter(reg, "dispatches_total",
			"Runs handed to an output driver, by result (scheduled, failed, recovered: an interrupted dispatch found on the platform).",
			"output_driver", "result"),
		latency: histogram(reg, "dispatch_latency_seconds",
			"Time from a change to the output driver accepting its run, by output driver.", 1, "output_driver"),
		waits: counter(reg, "rate_limit_waits_total", "Times a client waited for its rate limiter or a Retry-After.", "driver"),
		lastSuccess: gauge(reg, "poll_last_success_timestamp_seconds",
			"Unix time of the last successful poll cycle.", "driver"),
		health: h,
		cursor: newCursorMetrics(reg),
		entity: newEntityMetrics(reg),
	}
	return p
}

// PollObserver returns the hook that records every poll cycle (for
// cycle.Options.Observer) of a poller dispatching to the output driver
// named output (the one a cycle reports in CycleStats.Output wins); nil
// when m is nil (no metrics).
func (m *Metrics) PollObserver(output string) poll.Observer {
	if m == nil {
		return nil
	}
	return func(s poll.CycleStats) {
		out := output
		if s.Output != "" {
			out = s.Output
		}
		m.poll.observe(s, out)
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
	if now, ok := p.health.cycle(s.Error); ok {
		p.lastSuccess.WithLabelValues(d).Set(float64(now.Unix()))
	}
}

// addEach adds each count to the series labelled first and its key.
func addEach(c *prometheus.CounterVec, first string, counts map[string]int) {
	for second, n := range counts {
		c.WithLabelValues(first, second).Add(float64(n))
	}
}
