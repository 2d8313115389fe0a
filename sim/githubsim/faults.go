package githubsim

import (
	"net/http"
	"strconv"
	"time"
)

// Fault is an injected failure for one endpoint. The zero Status with Drop
// false and Delay zero is a no-op.
type Fault struct {
	Endpoint string // one of the Endpoint constants
	Times    int    // how many requests it affects (default 1)

	// Status answers with this HTTP status and Message instead of the
	// real response.
	Status  int
	Message string
	// RetryAfter sets the Retry-After header (seconds).
	RetryAfter int
	// RateLimited sets x-ratelimit-remaining: 0 and x-ratelimit-reset to
	// now+ResetIn (a primary rate limit answer; use Status 403 or 429).
	RateLimited bool
	ResetIn     time.Duration
	// Secondary makes the body carry the secondary-rate-limit
	// documentation_url, as GitHub's secondary limits do.
	Secondary bool

	// Delay waits before answering (released early by Close or when the
	// client goes away).
	Delay time.Duration
	// Drop closes the connection without any answer.
	Drop bool
	// After performs the real action first and then applies the fault:
	// the run is dispatched (or cancelled) but the client sees the fault.
	After bool
}

type faultState struct {
	Fault
	left int
}

// Inject adds a fault; faults for the same endpoint apply in order.
func (s *Server) Inject(f Fault) {
	if f.Times <= 0 {
		f.Times = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &faultState{Fault: f, left: f.Times})
}

// ClearFaults removes all pending faults.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

func (s *Server) takeFaultLocked(endpoint string) *Fault {
	for i, f := range s.faults {
		if f.Endpoint != endpoint {
			continue
		}
		f.left--
		if f.left <= 0 {
			s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
		}
		c := f.Fault
		return &c
	}
	return nil
}

// applyFault writes the fault's answer. It returns true when it wrote
// nothing (a pure delay), so the real answer should follow.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return false
		case <-s.done:
			t.Stop()
			return false
		}
	}
	if f.Drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return false
			}
		}
		panic(http.ErrAbortHandler)
	}
	if f.Status == 0 {
		return true
	}
	h := w.Header()
	if f.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	if f.RateLimited {
		s.mu.Lock()
		limit := s.opts.RateLimit
		s.mu.Unlock()
		setRateHeaders(h, limit, 0, limit, s.now().Add(f.ResetIn))
	}
	msg := f.Message
	if msg == "" {
		msg = http.StatusText(f.Status)
	}
	doc := "https://docs.github.com/rest"
	if f.Secondary {
		doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	}
	writeJSON(w, f.Status, map[string]any{"message": msg, "documentation_url": doc})
	return false
}

func setRateHeaders(h http.Header, limit, remaining, used int, reset time.Time) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(remaining, 0)))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}
