package jirasim

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestBurstLimit: a burst limit of 3 per rolling second admits 3 calls,
// refuses the 4th with Retry-After and no X-RateLimit-* header, admits
// again once the oldest call is a second old, and counts the refusals.
func TestBurstLimit(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 500e6, time.UTC)
	s := New(Options{Now: func() time.Time { return now }, BurstLimit: 3})
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/rest/api/3/myself", nil)
		req.Header.Set("Authorization", "Bearer x")
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		return w
	}
	steps := []struct {
		advance time.Duration
		want    int
		retry   string
	}{
		{0, http.StatusOK, ""},
		{300 * time.Millisecond, http.StatusOK, ""},
		{300 * time.Millisecond, http.StatusOK, ""},
		{300 * time.Millisecond, http.StatusTooManyRequests, "1"}, // 0.9 s after the first
		{100 * time.Millisecond, http.StatusOK, ""},               // the first has left the second
		{0, http.StatusTooManyRequests, "1"},
		{2 * time.Second, http.StatusOK, ""},
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		w := get()
		h := w.Header()
		if w.Code != st.want || h.Get("Retry-After") != st.retry {
			t.Fatalf("call %d: %d Retry-After %q, want %d %q", i, w.Code, h.Get("Retry-After"), st.want, st.retry)
		}
		if h.Get(hdrRemaining) != "" || h.Get(hdrLimit) != "" || h.Get(hdrReset) != "" {
			t.Fatalf("call %d: rate-limit headers moved: %v", i, h)
		}
		if st.want == http.StatusTooManyRequests && h.Get(hdrReason) != burstReason {
			t.Fatalf("call %d: RateLimit-Reason %q", i, h.Get(hdrReason))
		}
	}
	if s.RateLimited() != 2 {
		t.Fatalf("RateLimited = %d, want 2", s.RateLimited())
	}
}
