package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fullsend-dev/fullsend/internal/poll"
)

// apiMetrics are the series of outbound API requests.
type apiMetrics struct {
	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	remaining *prometheus.GaugeVec
}

func newAPIMetrics(reg prometheus.Registerer) *apiMetrics {
	a := &apiMetrics{
		requests: counter(reg, "api_requests_total", "Outbound API requests by system, endpoint template and status.", "system", "endpoint", "status"),
		duration: histogram(reg, "api_request_duration_seconds", "Outbound API request latency.", 0.01, "system"),
		remaining: gauge(reg, "api_rate_limit_remaining",
			"Rate-limit budget the API last reported remaining (X-RateLimit-Remaining).", "api"),
	}
	return a
}

// RateBudgetObserver returns a cycle hook (for cycle.Options.Observer,
// after PollObserver) that sets fullsend_api_rate_limit_remaining{api} to
// the budget the cycle's tracker last reported; cycles without one leave
// it alone. nil when m is nil (no metrics).
func (m *Metrics) RateBudgetObserver(api string) poll.Observer {
	if m == nil {
		return nil
	}
	return func(s poll.CycleStats) {
		if s.RateBudget.Known {
			m.api.remaining.WithLabelValues(api).Set(float64(s.RateBudget.Remaining))
		}
	}
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
