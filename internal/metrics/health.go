package metrics

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Health is the /healthz body.
type Health struct {
	OK                bool    `json:"ok"`
	LastCycleAgeSec   float64 `json:"last_cycle_age_seconds"`
	LastSuccessAgeSec float64 `json:"last_success_age_seconds"`
	LastError         string  `json:"last_error,omitempty"`
	Reason            string  `json:"reason"`
}

// health tracks when cycles ended and whether they succeeded.
type health struct {
	mu       sync.Mutex
	interval time.Duration
	now      func() time.Time
	start    time.Time
	last     time.Time
	lastOK   time.Time
	lastErr  string
}

func newHealth(interval time.Duration, now func() time.Time) *health {
	return &health{interval: interval, now: now, start: now()}
}

// cycle records a cycle that ended now with errText ("" = success) and
// returns the time and whether it succeeded.
func (h *health) cycle(errText string) (time.Time, bool) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last, h.lastErr = now, errText
	if errText == "" {
		h.lastOK = now
	}
	return now, errText == ""
}

// CycleEnded tells the health that a poll cycle ended now with errText
// ("" = success), and returns the time and whether it succeeded (the
// poll cycles' series, package pollmetrics).
func (m *Metrics) CycleEnded(errText string) (time.Time, bool) { return m.health.cycle(errText) }

// Health reports whether a successful cycle happened within 3 intervals.
// Before the first cycle the process counts as healthy for 3 intervals
// from start.
func (m *Metrics) Health() Health { return m.health.report() }

func (h *health) report() Health {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	r := Health{LastError: h.lastErr}
	if !h.last.IsZero() {
		r.LastCycleAgeSec = now.Sub(h.last).Seconds()
	}
	if h.lastOK.IsZero() {
		r.LastSuccessAgeSec = -1
		r.Reason = "no successful cycle yet"
		if h.lastErr != "" {
			// A bad start (the tracker unreachable): unhealthy at once,
			// while the poller backs off and retries.
			r.Reason = "no successful cycle yet; the last one failed"
			return r
		}
		r.OK = h.interval <= 0 || now.Sub(h.start) <= 3*h.interval
		return r
	}
	age := now.Sub(h.lastOK)
	r.LastSuccessAgeSec = age.Seconds()
	if h.interval > 0 && age > 3*h.interval {
		r.Reason = "no successful cycle in 3 intervals"
		return r
	}
	r.OK, r.Reason = true, "last cycle succeeded recently"
	return r
}

// Health and Live are the reports of the probes.
func (r Health) passed() bool { return r.OK }
func (r Live) passed() bool   { return r.OK }

// probe is the handler of a probe: the report made at each request as
// JSON, 200 when it passed, else 503.
func probe[R interface{ passed() bool }](report func() R) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		r := report()
		w.Header().Set("Content-Type", "application/json")
		if !r.passed() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(r)
	}
}
