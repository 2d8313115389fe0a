package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// apiMetrics are the series of outbound API requests.
type apiMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newAPIMetrics(reg prometheus.Registerer) *apiMetrics {
	a := &apiMetrics{
		requests: Counter(reg, "api_requests_total", "Outbound API requests by system, endpoint template and status.", "system", "endpoint", "status"),
		duration: Histogram(reg, "api_request_duration_seconds", "Outbound API request latency.", 0.01, "system"),
	}
	return a
}

// ObserveRequest records one outbound API request; endpoint is a template
// such as "POST /rest/api/3/search/jql", never a URL with ids or secrets.
func (m *Metrics) ObserveRequest(system, endpoint string, status int, d time.Duration) {
	m.api.requests.WithLabelValues(system, endpoint, strconv.Itoa(status)).Inc()
	m.api.duration.WithLabelValues(system).Observe(d.Seconds())
}

// RequestObserver returns the per-request hook of a client of system
// (e.g. jira.Options.OnRequest); nil when m is nil (no metrics).
func (m *Metrics) RequestObserver(system string) func(endpoint string, status int, d time.Duration) {
	if m == nil {
		return nil
	}
	return func(endpoint string, status int, d time.Duration) { m.ObserveRequest(system, endpoint, status, d) }
}
