package scenario

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/deploy/grafana/promql"
)

// total sums the last sample's series called name whose labels include want.
func total(s promql.Sample, name string, want map[string]string) float64 {
	var sum float64
	for _, ser := range s.Series {
		if ser.Name != name {
			continue
		}
		ok := true
		for k, v := range want {
			ok = ok && ser.Labels[k] == v
		}
		if ok {
			sum += ser.Value
		}
	}
	return sum
}

// The scenario's incidents show in the metrics: every one the dashboard
// has a panel for happened at least once.
func TestScenarioExercisesThePanels(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
	samples, err := Run(context.Background(), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 41 {
		t.Fatalf("%d samples, want 41 (one before the first minute, one per minute)", len(samples))
	}
	last := samples[len(samples)-1]
	for _, c := range []struct {
		name   string
		labels map[string]string
	}{
		{"fullsend_poll_cycles_total", map[string]string{"result": "ok"}},
		{"fullsend_poll_cycles_total", map[string]string{"result": "error"}},
		{"fullsend_dispatches_total", map[string]string{"output_driver": "gha-dispatch", "result": "scheduled"}},
		{"fullsend_dispatches_total", map[string]string{"result": "failed"}},
		{"fullsend_dispatch_latency_seconds_count", nil},
		{"fullsend_runs_total", map[string]string{"outcome": "coalesced"}},
		{"fullsend_poll_events_dropped_total", map[string]string{"reason": "denied"}},
		{"fullsend_poll_events_dropped_total", map[string]string{"reason": "bot"}},
		{"fullsend_poll_locks_total", map[string]string{"outcome": "stale_removed"}},
		{"fullsend_api_requests_total", map[string]string{"status": "429"}},
		{"fullsend_api_rate_limit_remaining", map[string]string{"api": "jira"}},
		{"fullsend_poll_changes_quarantined_total", nil},
		{"fullsend_runs_total", map[string]string{"outcome": "rate_limited"}},
		{"fullsend_poll_last_success_timestamp_seconds", map[string]string{"driver": "jira-poll"}},
	} {
		if v := total(last, c.name, c.labels); v <= 0 {
			t.Errorf("%s%v = %v after the scenario, want > 0", c.name, c.labels, v)
		}
	}
	for _, name := range []string{"fullsend_runs_total", "fullsend_poll_locks_total", "fullsend_poll_changes_quarantined_total", "fullsend_rate_limit_waits_total", "fullsend_poll_items_failed_total"} {
		for _, ser := range last.Series {
			if ser.Name == name {
				t.Logf("%s %v %v", name, ser.Labels, ser.Value)
			}
		}
	}
}
