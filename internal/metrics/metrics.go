// Package metrics serves fullsend's Prometheus metrics, /healthz (the
// tracker's health: readiness) and /livez (the poll loop turns: liveness). It
// owns one private registry per poller (tests and several pollers in one
// process do not collide), the outbound API requests' series (the Jira
// client's OnRequest for each call) and the health the poll cycles report
// to (CycleEnded). A component that produces series registers them on
// the poller's registry itself (Registerer, with Counter, Gauge and
// Histogram): the poll cycles (package pollmetrics), the local executor's
// runs' isolation (package runreport). It imports no pipeline, so any
// layer may feed it.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every series fullsend exports.
const namespace = "fullsend"

// Metrics is a poller's metrics on a private registry.
type Metrics struct {
	reg    *prometheus.Registry
	api    *apiMetrics
	health *health
}

// New creates the metrics. interval is the poll interval, used by /healthz
// to judge staleness (unhealthy after 3 intervals without a good cycle).
func New(interval time.Duration) *Metrics { return newMetrics(interval, time.Now) }

// NewClock is New reading the time from now (simulations on a fake clock:
// the last-success timestamp and /healthz follow it).
func NewClock(interval time.Duration, now func() time.Time) *Metrics {
	return newMetrics(interval, now)
}

func newMetrics(interval time.Duration, now func() time.Time) *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	h := newHealth(interval, now)
	return &Metrics{reg: reg, api: newAPIMetrics(reg), health: h}
}

// Handler serves /metrics (Prometheus text format), /healthz (a successful
// cycle within 3 intervals) and /livez (a cycle, successful or not, ended
// within LiveIntervals intervals).
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	mux.HandleFunc("/healthz", probe(m.health.report))
	mux.HandleFunc("/livez", probe(m.health.live))
	return mux
}

// Counter creates a counter vector and registers it on reg.
func Counter(reg prometheus.Registerer, name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	reg.MustRegister(c)
	return c
}

// Gauge creates a gauge vector and registers it on reg.
func Gauge(reg prometheus.Registerer, name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, labels)
	reg.MustRegister(g)
	return g
}

// Histogram creates a histogram vector with exponential buckets from start
// and registers it on reg.
func Histogram(reg prometheus.Registerer, name, help string, start float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help,
		Buckets: prometheus.ExponentialBuckets(start, 2, 12)}, labels)
	reg.MustRegister(h)
	return h
}

// Registerer is the poller's registry, on which components that produce
// their own series register them (an output driver through
// output.Env.Metrics). nil when m is nil.
func (m *Metrics) Registerer() prometheus.Registerer {
	if m == nil {
		return nil
	}
	return m.reg
}
