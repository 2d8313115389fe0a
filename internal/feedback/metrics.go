package feedback

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Metrics counts feedback writes: fullsend_feedback_total{platform,kind,result}.
type Metrics struct{ c *prometheus.CounterVec }

// NewMetrics registers the counter on reg (nil: counted, not exported).
// Registering it again on the same registry reuses the first one.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "fullsend", Name: "feedback_total",
		Help: "Feedback written on work items (acknowledge, refuse, unhonoured) by platform and result (created, existing, failed)."},
		[]string{"platform", "kind", "result"})
	if reg == nil {
		return &Metrics{c: c}
	}
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if old, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
				return &Metrics{c: old}
			}
		}
		return &Metrics{c: c}
	}
	return &Metrics{c: c}
}

// Count counts one write; a nil *Metrics counts nothing.
func (m *Metrics) Count(platform, kind, result string) {
	if m != nil {
		m.c.WithLabelValues(platform, kind, result).Inc()
	}
}

// Value is the count of one series (tests, demo).
func (m *Metrics) Value(platform, kind, result string) float64 {
	if m == nil {
		return 0
	}
	return counterValue(m.c.WithLabelValues(platform, kind, result))
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	if c.Write(&m) != nil {
		return 0
	}
	return m.GetCounter().GetValue()
}
