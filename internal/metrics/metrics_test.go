package metrics

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func scrape(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

func TestCountersMove(t *testing.T) {
	m := New(time.Minute)
	m.ObserveCycle(Cycle{Driver: "jira-poll", Duration: 300 * time.Millisecond, Candidates: 50, Eligible: 5,
		LocksAttempted: 5, LocksAcquired: 4, LocksLost: 1, Events: 7, RunsMatched: 3, RunsCoalesced: 2, RunsDenied: 1,
		DispatchesScheduled: 3, RateLimitWaits: 2})
	m.ObserveCycle(Cycle{Driver: "jira-poll", Err: errors.New("boom")})
	m.ObserveRequest("jira", "POST /rest/api/3/search/jql", 200, 40*time.Millisecond)
	code, body := scrape(t, m.Handler(), "/metrics")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{
		`fullsend_poll_cycles_total{driver="jira-poll",result="ok"} 1`,
		`fullsend_poll_cycles_total{driver="jira-poll",result="error"} 1`,
		`fullsend_poll_candidates_total{driver="jira-poll"} 50`,
		`fullsend_poll_locks_total{driver="jira-poll",outcome="acquired"} 4`,
		`fullsend_poll_locks_total{driver="jira-poll",outcome="lost"} 1`,
		`fullsend_runs_total{driver="jira-poll",outcome="coalesced"} 2`,
		`fullsend_runs_total{driver="jira-poll",outcome="denied"} 1`,
		`fullsend_dispatches_total{driver="jira-poll",result="scheduled"} 3`,
		`fullsend_api_requests_total{endpoint="POST /rest/api/3/search/jql",status="200",system="jira"} 1`,
		`fullsend_rate_limit_waits_total{driver="jira-poll"} 2`,
		`fullsend_poll_cycle_duration_seconds_count{driver="jira-poll"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestHealthz(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := New(time.Minute)
	m.now = func() time.Time { return now }
	m.start = now
	cases := []struct {
		step   func()
		code   int
		reason string
	}{
		{func() {}, 200, "no successful cycle yet"},
		{func() { m.ObserveCycle(Cycle{Driver: "d", Err: errors.New("connection refused")}) }, 503, "the last one failed"},
		{func() { now = now.Add(4 * time.Minute) }, 503, "no successful cycle yet"},
		{func() { m.ObserveCycle(Cycle{Driver: "d"}) }, 200, "succeeded recently"},
		{func() { now = now.Add(2 * time.Minute); m.ObserveCycle(Cycle{Driver: "d", Err: errors.New("x")}) }, 200, "succeeded recently"},
		{func() { now = now.Add(2 * time.Minute) }, 503, "no successful cycle in 3 intervals"},
	}
	for i, c := range cases {
		c.step()
		code, body := scrape(t, m.Handler(), "/healthz")
		var h Health
		if err := json.Unmarshal([]byte(body), &h); err != nil {
			t.Fatal(err)
		}
		if code != c.code || !strings.Contains(h.Reason, c.reason) {
			t.Fatalf("step %d: %d %+v", i, code, h)
		}
	}
}
