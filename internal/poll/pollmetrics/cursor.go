package pollmetrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// cursorMetrics are the series of the shared discovery cursor
// (poll.CycleStats.Cursor, docs/polling.md "Discovery cursor").
type cursorMetrics struct {
	cycles *prometheus.CounterVec
	writes *prometheus.CounterVec
	lag    *prometheus.GaugeVec
	shared *prometheus.CounterVec
}

func newCursorMetrics(reg prometheus.Registerer) *cursorMetrics {
	c := &cursorMetrics{
		cycles: metrics.Counter(reg, "poll_cursor_cycles_total",
			"Poll cycles by discovery cursor state (used, absent, corrupt, fallback: discovery without the cursor).", "driver", "state"),
		writes: metrics.Counter(reg, "poll_cursor_moves_total", "Discovery cursor writes that moved it forward.", "driver"),
		lag: metrics.Gauge(reg, "poll_cursor_lag_seconds",
			"How far the discovery cursor trailed the poller's clock at the last cycle.", "driver"),
		shared: metrics.Counter(reg, "poll_left_to_others_total",
			"Eligible items left to the poller preferred for them (sharing work between pollers).", "driver"),
	}
	return c
}

// observe records the cursor of one cycle (nothing for drivers without one).
func (c *cursorMetrics) observe(s poll.CycleStats) {
	cur := s.Cursor
	if cur.State == "" {
		return
	}
	c.cycles.WithLabelValues(s.Driver, cur.State).Inc()
	if cur.Moved {
		c.writes.WithLabelValues(s.Driver).Inc()
	}
	if !cur.At.IsZero() {
		c.lag.WithLabelValues(s.Driver).Set(cur.Lag.Seconds())
	}
	c.shared.WithLabelValues(s.Driver).Add(float64(cur.Shared))
}
