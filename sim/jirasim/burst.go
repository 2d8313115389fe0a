package jirasim

import (
	"net/http"
	"strconv"
	"time"
)

// burstReason is the RateLimit-Reason of a call over the burst limit.
const burstReason = "jira-burst-based"

// spendBurst admits a call under Options.BurstLimit: at most BurstLimit
// calls in any rolling second. A call over it is answered 429 with
// Retry-After (whole seconds until the oldest admitted call of the second
// leaves it, at least 1) and counted in RateLimited; it sends no
// X-RateLimit-* header, as Jira's burst limit moves none.
func (s *Server) spendBurst(w http.ResponseWriter) bool {
	n := s.opts.BurstLimit
	if n <= 0 {
		return true
	}
	now := s.opts.Now()
	s.mu.Lock()
	keep := s.burst[:0]
	for _, t := range s.burst {
		if now.Sub(t) < time.Second {
			keep = append(keep, t)
		}
	}
	s.burst = keep
	ok := len(s.burst) < n
	var wait time.Duration
	if ok {
		s.burst = append(s.burst, now)
	} else {
		s.budget.denied++
		wait = s.burst[0].Add(time.Second).Sub(now)
	}
	s.mu.Unlock()
	if ok {
		return true
	}
	w.Header().Set(hdrReason, burstReason)
	w.Header().Set("Retry-After", strconv.Itoa(max(int((wait+time.Second-1)/time.Second), 1)))
	writeError(w, http.StatusTooManyRequests, "Rate limit exceeded.")
	return false
}
