// Package metrics serves fullsend's Prometheus metrics, /healthz (the
// tracker's health: readiness) and /livez (the poll loop turns: liveness). It
// owns one private registry per poller (tests and several pollers in one
// process do not collide) and the series on it: the components report
// through the hooks they define themselves (poll.Observer for each poll
// cycle, the Jira client's OnRequest for each API call), and this package
// turns those reports into series. A component that produces a series
// itself registers it on the poller's registry (Registerer): the local
// executor counts its runs' isolation (package runreport). It sits above
// package poll, whose cycle reports it reads; nothing below the pipelines
// imports it.
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
	poll   *pollMetrics
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
	return &Metrics{reg: reg, poll: newPollMetrics(reg, h), api: newAPIMetrics(reg), health: h}
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

// counter creates a counter vector and registers it on reg.
func counter(reg prometheus.Registerer, name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	reg.MustRegister(c)
	return c
}

// gauge creates a gauge vector and registers it on reg.
func gauge(reg prometheus.Registerer, name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, labels)
	reg.MustRegister(g)
	return g
}

// histogram creates a histogram vector with exponential buckets from start
// and registers it on reg.
func histogram(reg prometheus.Registerer, name, help string, start float64, labels ...string) *prometheus.HistogramVec {
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
