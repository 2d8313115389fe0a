package jirasim

import (
	"net/http"
	"strconv"
	"time"
)

// RateBudget is a points-based rate limit like Jira Cloud's quotas: every
// call costs one point, Points are granted per Window of the emulator's
// clock (windows are aligned to multiples of Window), and a call made
// when none are left is answered 429.
type RateBudget struct {
	Points int
	Window time.Duration
	// Reason is the RateLimit-Reason of a 429 (default "jira-burst-based").
	Reason string
}

// Rate-limit headers Jira Cloud sends; see docs/jira.md "Rate limits".
const (
	hdrLimit     = "X-RateLimit-Limit"
	hdrRemaining = "X-RateLimit-Remaining"
	hdrReset     = "X-RateLimit-Reset"
	hdrNearLimit = "X-RateLimit-NearLimit"
	hdrReason    = "RateLimit-Reason"
)

// nearLimitShare is the share of the budget under which responses carry
// X-RateLimit-NearLimit: true (Jira: less than 20 % remaining).
const nearLimitShare = 0.2

// budgetState is the spending of the current window.
type budgetState struct {
	window time.Time // start of the current window
	spent  int
	denied int // calls answered 429
}

// RateLimited is the number of calls the rate budget answered with 429.
func (s *Server) RateLimited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.budget.denied
}

// spend charges one call to the budget and writes the rate-limit headers;
// it reports false after answering 429 when the budget is exhausted.
func (s *Server) spend(w http.ResponseWriter) bool {
	b := s.opts.RateBudget
	if b == nil || b.Points <= 0 || b.Window <= 0 {
		return true
	}
	now := s.opts.Now()
	s.mu.Lock()
	start := now.Truncate(b.Window)
	if !start.Equal(s.budget.window) {
		s.budget.window, s.budget.spent = start, 0
	}
	ok := s.budget.spent < b.Points
	if ok {
		s.budget.spent++
	} else {
		s.budget.denied++
	}
	remaining := b.Points - s.budget.spent
	s.mu.Unlock()

	reset := start.Add(b.Window)
	h := w.Header()
	h.Set(hdrLimit, strconv.Itoa(b.Points))
	h.Set(hdrRemaining, strconv.Itoa(remaining))
	h.Set(hdrReset, reset.UTC().Format(resetLayout))
	if float64(remaining) < nearLimitShare*float64(b.Points) {
		h.Set(hdrNearLimit, "true")
	}
	if ok {
		return true
	}
	reason := b.Reason
	if reason == "" {
		reason = "jira-burst-based"
	}
	h.Set(hdrReason, reason)
	secs := max(int((reset.Sub(now)+time.Second-1)/time.Second), 1)
	h.Set("Retry-After", strconv.Itoa(secs))
	writeError(w, http.StatusTooManyRequests, "Rate limit exceeded.")
	return false
}

// resetLayout writes X-RateLimit-Reset as an ISO 8601 UTC timestamp. Jira
// documents minute precision (yyyy-MM-ddTHH:mmZ); the emulator adds
// seconds so that budgets of a few seconds can be expressed, and clients
// accept both.
const resetLayout = "2006-01-02T15:04:05Z"
