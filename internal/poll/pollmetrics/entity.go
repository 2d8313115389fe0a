package pollmetrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// entityMetrics are the series of the poll cycle's entity stage
// (poll.CycleStats.EntitySystem and the counts beside it; docs/entities.md),
// and the overlay errors of its decisions (docs/configuration.md).
type entityMetrics struct {
	resolutions *prometheus.CounterVec
	denials     *prometheus.CounterVec
	// overlays counts the runs planned without their overlays because a
	// `when` could not be evaluated (poll.CycleStats.OverlayErrors).
	overlays *prometheus.CounterVec
}

func newEntityMetrics(reg prometheus.Registerer) *entityMetrics {
	return &entityMetrics{
		resolutions: metrics.Counter(reg, "entity_resolutions_total",
			"Entities the entity stage resolved, by system and result (ok, failed: evaluation denied).", "system", "result"),
		denials: metrics.Counter(reg, "entity_denials_total",
			"Changes an entity-source harness was denied evaluation of, by harness and reason (unresolved, incomplete).", "harness", "reason"),
		overlays: metrics.Counter(reg, "overlay_errors_total",
			"Runs planned with their harness's own settings because an overlay's when could not be evaluated, by harness.", "harness"),
	}
}

// observe records the entity stage of one cycle (no resolutions when it
// did not run) and its denials (also those of a driver that resolves no
// entities while a harness declares its system).
func (e *entityMetrics) observe(s poll.CycleStats) {
	if s.EntitySystem != "" {
		e.resolutions.WithLabelValues(s.EntitySystem, "ok").Add(float64(s.EntitiesResolved))
		e.resolutions.WithLabelValues(s.EntitySystem, "failed").Add(float64(s.EntitiesUnresolved))
	}
	for k, n := range s.EntityDenials {
		e.denials.WithLabelValues(k.Harness, k.Reason).Add(float64(n))
	}
	for h, n := range s.OverlayErrors {
		e.overlays.WithLabelValues(h).Add(float64(n))
	}
}
