package metrics

import (
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/periodic"
)

// LiveIntervals is how many poll intervals may pass without a cycle ending
// before /livez fails: the longest wait after failing cycles
// (periodic.MaxBackoffFactor intervals), one cycle (bounded by --cycle-timeout,
// at most one interval) and one interval of slack. A tracker outage makes
// cycles fail, not stop, so it never fails /livez.
const LiveIntervals = periodic.MaxBackoffFactor + 2

// Live is the /livez body: whether the poll loop is turning.
type Live struct {
	OK              bool    `json:"ok"`
	LastCycleAgeSec float64 `json:"last_cycle_age_seconds"` // -1 before the first cycle
	Reason          string  `json:"reason"`
}

// Live reports whether a cycle, successful or not, ended within
// LiveIntervals intervals (counted from the start before the first one).
func (m *Metrics) Live() Live { return m.health.live() }

func (h *health) live() Live {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	limit := LiveIntervals * h.interval
	r := Live{LastCycleAgeSec: -1}
	since, what := h.start, "no cycle ended since the start"
	if !h.last.IsZero() {
		r.LastCycleAgeSec = now.Sub(h.last).Seconds()
		since, what = h.last, "no cycle ended"
	}
	if h.interval > 0 && now.Sub(since) > limit {
		r.Reason = fmt.Sprintf("%s in %d intervals (%s): the poll loop is stuck", what, LiveIntervals, limit)
		return r
	}
	r.OK, r.Reason = true, "the poll loop is turning"
	return r
}
