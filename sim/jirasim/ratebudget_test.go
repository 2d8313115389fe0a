package jirasim

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// A budget of 10 per second: every answer carries the headers, the last
// fifth is flagged near the limit, the 11th call is refused until the
// next window.
func TestRateBudgetHeaders(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 250e6, time.UTC)
	s := New(Options{Now: func() time.Time { return now }, RateBudget: &RateBudget{Points: 10, Window: time.Second}})
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/rest/api/3/myself", nil)
		req.Header.Set("Authorization", "Bearer x")
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		return w
	}
	for i := 1; i <= 10; i++ {
		w := get()
		h := w.Header()
		if w.Code != http.StatusOK || h.Get(hdrLimit) != "10" || h.Get(hdrRemaining) != strconv.Itoa(10-i) ||
			h.Get(hdrReset) != "2026-03-01T12:00:01Z" {
			t.Fatalf("call %d: %d %v", i, w.Code, h)
		}
		if near := h.Get(hdrNearLimit) == "true"; near != (10-i < 2) {
			t.Errorf("call %d: near limit = %v with %d left", i, near, 10-i)
		}
	}
	w := get()
	if h := w.Header(); w.Code != http.StatusTooManyRequests || h.Get("Retry-After") != "1" ||
		h.Get(hdrReason) != "jira-burst-based" || h.Get(hdrRemaining) != "0" {
		t.Fatalf("over budget: %d %v", w.Code, h)
	}
	if s.RateLimited() != 1 {
		t.Errorf("RateLimited = %d", s.RateLimited())
	}
	now = now.Add(time.Second)
	if w := get(); w.Code != http.StatusOK || w.Header().Get(hdrRemaining) != "9" {
		t.Errorf("next window: %d %v", w.Code, w.Header())
	}
}
