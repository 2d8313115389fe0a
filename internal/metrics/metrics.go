// Package metrics exposes the poller's Prometheus metrics and a /healthz
// endpoint. Callers feed it one Cycle per poll cycle and one request record
// per API call; it owns its registry, so tests and several pollers in one
// process do not collide.
package metrics

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Cycle is what one poll cycle reports.
type Cycle struct {
	Driver                                   string
	Err                                      error
	Duration                                 time.Duration
	Candidates, Eligible                     int
	LocksAttempted, LocksAcquired, LocksLost int
	StaleRemoved                             int
	Events                                   int
	RunsMatched, RunsCoalesced, RunsDenied   int
	RunsRateLimited                          int
	DispatchesScheduled, DispatchesFailed    int
	RateLimitWaits                           int
}

// Metrics is a set of poller metrics on a private registry.
type Metrics struct {
	reg            *prometheus.Registry
	cycles         *prometheus.CounterVec
	cycleDuration  *prometheus.HistogramVec
	candidates     *prometheus.CounterVec
	eligible       *prometheus.CounterVec
	locks          *prometheus.CounterVec
	events         *prometheus.CounterVec
	runs           *prometheus.CounterVec
	dispatches     *prometheus.CounterVec
	apiRequests    *prometheus.CounterVec
	apiDuration    *prometheus.HistogramVec
	rateLimitWaits *prometheus.CounterVec
	lastSuccess    *prometheus.GaugeVec

	mu       sync.Mutex
	interval time.Duration
	start    time.Time
	last     time.Time
	lastOK   time.Time
	lastErr  string
	now      func() time.Time
}

// New creates the metrics. interval is the poll interval, used by /healthz
// to judge staleness (unhealthy after 3 intervals without a good cycle).
func New(interval time.Duration) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), interval: interval, now: time.Now}
	m.start = m.now()
	f := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "fullsend", Name: name, Help: help}, labels)
		m.reg.MustRegister(c)
		return c
	}
	m.cycles = f("poll_cycles_total", "Poll cycles by driver and result (ok, error).", "driver", "result")
	m.candidates = f("poll_candidates_total", "Work items returned by discovery.", "driver")
	m.eligible = f("poll_eligible_total", "Candidates that were unlocked (or stale) and changed.", "driver")
	m.locks = f("poll_locks_total", "Lock operations by outcome (attempted, acquired, lost, stale_removed).", "driver", "outcome")
	m.events = f("poll_events_total", "NormalizedEvents reconstructed from changes.", "driver")
	m.runs = f("runs_total", "Runs by outcome (matched, coalesced, denied, rate_limited).", "driver", "outcome")
	m.dispatches = f("dispatches_total", "Dispatches by result (scheduled, failed).", "driver", "result")
	m.apiRequests = f("api_requests_total", "Outbound API requests by system, endpoint template and status.", "system", "endpoint", "status")
	m.rateLimitWaits = f("rate_limit_waits_total", "Times a client waited for its rate limiter or a Retry-After.", "driver")
	m.cycleDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "fullsend", Name: "poll_cycle_duration_seconds",
		Help: "Poll cycle wall time.", Buckets: prometheus.ExponentialBuckets(0.05, 2, 12)}, []string{"driver"})
	m.apiDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "fullsend", Name: "api_request_duration_seconds",
		Help: "Outbound API request latency.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 12)}, []string{"system"})
	m.lastSuccess = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "fullsend", Name: "poll_last_success_timestamp_seconds",
		Help: "Unix time of the last successful poll cycle."}, []string{"driver"})
	m.reg.MustRegister(m.cycleDuration, m.apiDuration, m.lastSuccess,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveCycle records one poll cycle.
func (m *Metrics) ObserveCycle(c Cycle) {
	d := c.Driver
	result := "ok"
	if c.Err != nil {
		result = "error"
	}
	m.cycles.WithLabelValues(d, result).Inc()
	m.cycleDuration.WithLabelValues(d).Observe(c.Duration.Seconds())
	m.candidates.WithLabelValues(d).Add(float64(c.Candidates))
	m.eligible.WithLabelValues(d).Add(float64(c.Eligible))
	for outcome, n := range map[string]int{"attempted": c.LocksAttempted, "acquired": c.LocksAcquired, "lost": c.LocksLost, "stale_removed": c.StaleRemoved} {
		m.locks.WithLabelValues(d, outcome).Add(float64(n))
	}
	m.events.WithLabelValues(d).Add(float64(c.Events))
	for outcome, n := range map[string]int{"matched": c.RunsMatched, "coalesced": c.RunsCoalesced, "denied": c.RunsDenied, "rate_limited": c.RunsRateLimited} {
		m.runs.WithLabelValues(d, outcome).Add(float64(n))
	}
	m.dispatches.WithLabelValues(d, "scheduled").Add(float64(c.DispatchesScheduled))
	m.dispatches.WithLabelValues(d, "failed").Add(float64(c.DispatchesFailed))
	m.rateLimitWaits.WithLabelValues(d).Add(float64(c.RateLimitWaits))

	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = now
	if c.Err == nil {
		m.lastOK = now
		m.lastErr = ""
		m.lastSuccess.WithLabelValues(d).Set(float64(now.Unix()))
	} else {
		m.lastErr = c.Err.Error()
	}
}

// ObserveRequest records one outbound API request; endpoint is a template
// such as "POST /rest/api/3/search/jql", never a URL with ids or secrets.
func (m *Metrics) ObserveRequest(system, endpoint string, status int, d time.Duration) {
	m.apiRequests.WithLabelValues(system, endpoint, strconv.Itoa(status)).Inc()
	m.apiDuration.WithLabelValues(system).Observe(d.Seconds())
}

// Handler serves /metrics (Prometheus text format) and /healthz.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	mux.HandleFunc("/healthz", m.healthz)
	return mux
}

// Health is the /healthz body.
type Health struct {
	OK                bool    `json:"ok"`
	LastCycleAgeSec   float64 `json:"last_cycle_age_seconds"`
	LastSuccessAgeSec float64 `json:"last_success_age_seconds"`
	LastError         string  `json:"last_error,omitempty"`
	Reason            string  `json:"reason"`
}

// Health reports whether a successful cycle happened within 3 intervals.
// Before the first cycle the process counts as healthy for 3 intervals
// from start; a failed cycle before any success makes it unhealthy at once.
func (m *Metrics) Health() Health {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	h := Health{LastError: m.lastErr}
	if !m.last.IsZero() {
		h.LastCycleAgeSec = now.Sub(m.last).Seconds()
	}
	if m.lastOK.IsZero() {
		h.LastSuccessAgeSec = -1
		h.Reason = "no successful cycle yet"
		if m.lastErr != "" {
			// A bad start (the tracker unreachable): unhealthy at once,
			// while the poller backs off and retries.
			h.Reason = "no successful cycle yet; the last one failed"
			return h
		}
		h.OK = m.interval <= 0 || now.Sub(m.start) <= 3*m.interval
		return h
	}
	age := now.Sub(m.lastOK)
	h.LastSuccessAgeSec = age.Seconds()
	if m.interval > 0 && age > 3*m.interval {
		h.Reason = "no successful cycle in 3 intervals"
		return h
	}
	h.OK, h.Reason = true, "last cycle succeeded recently"
	return h
}

func (m *Metrics) healthz(w http.ResponseWriter, _ *http.Request) {
	h := m.Health()
	w.Header().Set("Content-Type", "application/json")
	if !h.OK {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(h)
}
