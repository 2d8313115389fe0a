package metrics

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fullsend-dev/fullsend/internal/periodic"
)

func scrape(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

func TestRequestSeries(t *testing.T) {
	m := New(time.Minute)
	m.RequestObserver("jira")("POST /rest/api/3/search/jql", 200, 40*time.Millisecond)
	m.RequestObserver("jira")("POST /rest/api/3/search/jql", 429, time.Millisecond)
	want := `
# HELP fullsend_api_requests_total Outbound API requests by system, endpoint template and status.
# TYPE fullsend_api_requests_total counter
fullsend_api_requests_total{endpoint="POST /rest/api/3/search/jql",status="200",system="jira"} 1
fullsend_api_requests_total{endpoint="POST /rest/api/3/search/jql",status="429",system="jira"} 1
`
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(want), "fullsend_api_requests_total"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.api.duration); n != 1 {
		t.Errorf("request duration series = %d, want 1", n)
	}
}

// Without metrics, the hooks are nil so that the components skip them.
func TestNilMetricsGiveNilHooks(t *testing.T) {
	var m *Metrics
	if m.RequestObserver("jira") != nil {
		t.Fatal("nil metrics returned a hook")
	}
}

// The handler serves the registry: the series a component registered on
// it (Registerer), the API requests' and the Go runtime's.
func TestHandlerServesMetrics(t *testing.T) {
	m := New(time.Minute)
	Counter(m.Registerer(), "poll_cycles_total", "Poll cycles.", "driver").WithLabelValues("jira-poll").Inc()
	m.ObserveRequest("jira", "GET /rest/api/3/myself", 200, time.Millisecond)
	code, body := scrape(t, m.Handler(), "/metrics")
	if code != 200 || !strings.Contains(body, `fullsend_poll_cycles_total{driver="jira-poll"} 1`) ||
		!strings.Contains(body, `fullsend_api_requests_total{endpoint="GET /rest/api/3/myself",status="200",system="jira"} 1`) ||
		!strings.Contains(body, "go_goroutines") {
		t.Fatalf("status %d body:\n%.800s", code, body)
	}
}

func TestHealthz(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewClock(time.Minute, func() time.Time { return now })
	cases := []struct {
		step   func()
		code   int
		reason string
	}{
		{func() {}, 200, "no successful cycle yet"},
		{func() { m.CycleEnded("connection refused") }, 503, "the last one failed"},
		{func() { now = now.Add(4 * time.Minute) }, 503, "no successful cycle yet"},
		{func() { m.CycleEnded("") }, 200, "succeeded recently"},
		{func() { now = now.Add(2 * time.Minute); m.CycleEnded("x") }, 200, "succeeded recently"},
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

// /livez follows the poll loop, not the tracker: failing cycles keep it
// up (while /healthz goes down), and only a loop that stops ending cycles
// for LiveIntervals intervals fails it.
func TestLivez(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewClock(time.Minute, func() time.Time { return now })
	limit := LiveIntervals * time.Minute
	fail := func() { m.CycleEnded("jira: HTTP 503") }
	cases := []struct {
		name    string
		step    func()
		live    int
		healthz int
		reason  string
	}{
		{"start", func() {}, 200, 200, "turning"},
		{"first cycle late but within the limit", func() { now = now.Add(limit) }, 200, 503, "turning"},
		{"no cycle since the start", func() { now = now.Add(time.Second) }, 503, 503, "no cycle ended since the start"},
		{"a failed cycle turns the loop", fail, 200, 503, "turning"},
		{"a tracker outage: failures at the backoff cap", func() {
			for range 5 {
				now = now.Add(periodic.MaxBackoffFactor * time.Minute)
				fail()
			}
		}, 200, 503, "turning"},
		{"a success", func() { now = now.Add(time.Minute); m.CycleEnded("") }, 200, 200, "turning"},
		{"just within the limit", func() { now = now.Add(limit) }, 200, 503, "turning"},
		{"stuck loop", func() { now = now.Add(time.Second) }, 503, 503, "no cycle ended in 12 intervals"},
	}
	for _, c := range cases {
		c.step()
		code, body := scrape(t, m.Handler(), "/livez")
		var l Live
		if err := json.Unmarshal([]byte(body), &l); err != nil {
			t.Fatalf("%s: %v: %s", c.name, err, body)
		}
		if code != c.live || l.OK != (c.live == 200) || !strings.Contains(l.Reason, c.reason) {
			t.Errorf("%s: /livez %d %+v, want %d %q", c.name, code, l, c.live, c.reason)
		}
		if got := m.Live(); got != l {
			t.Errorf("%s: Live() %+v, /livez %+v", c.name, got, l)
		}
		if code, _ := scrape(t, m.Handler(), "/healthz"); code != c.healthz {
			t.Errorf("%s: /healthz %d, want %d", c.name, code, c.healthz)
		}
	}
}
