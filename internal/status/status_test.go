package status

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/quarantine"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// planRef reads "driver [id [url]]" (a driver alone: a placeholder).
func planRef(s string) plan.Ref {
	f := append(strings.Fields(s), "", "")
	return plan.Ref{Driver: f[0], ID: f[1], URL: f[2]}
}

// pollerMetrics is what a poller's /metrics says after 41 good cycles and
// one failed one (the series internal/metrics exports; TestScrapeRealMetrics
// checks the names against it).
const pollerMetrics = `# TYPE fullsend_poll_cycles_total counter
fullsend_poll_cycles_total{driver="jira-poll",result="ok"} 41
fullsend_poll_cycles_total{driver="jira-poll",result="error"} 1
# TYPE fullsend_poll_cycle_duration_seconds histogram
fullsend_poll_cycle_duration_seconds_bucket{driver="jira-poll",le="+Inf"} 42
fullsend_poll_cycle_duration_seconds_sum{driver="jira-poll"} 52.5
fullsend_poll_cycle_duration_seconds_count{driver="jira-poll"} 42
# TYPE fullsend_poll_last_success_timestamp_seconds gauge
fullsend_poll_last_success_timestamp_seconds{driver="jira-poll"} 1.77262557e+09
# TYPE fullsend_api_requests_total counter
fullsend_api_requests_total{endpoint="POST /rest/api/3/search/jql",status="200",system="jira"} 120
fullsend_api_requests_total{endpoint="GET /rest/api/3/myself",status="200",system="jira"} 3
# TYPE fullsend_api_rate_limit_remaining gauge
fullsend_api_rate_limit_remaining{api="jira"} 4870
`

const pollerHealth = `{"ok":true,"last_cycle_age_seconds":30,"last_success_age_seconds":30,"reason":"last cycle succeeded recently"}`

// overviewWorld holds one issue per state the overview shows.
func overviewWorld(t *testing.T) *world {
	w := newWorld(t)
	w.issue("Quiet issue: nothing recorded")
	pending := w.issue("Pending lock")
	waiting := w.issue("Dispatched, run not started")
	dispatched := w.issue("Dispatched lock")
	running := w.issue("Running lock")
	stale := w.issue("Stale lock")
	quarantined := w.issue("Quarantined change")
	deferred := w.issue("Deferred harness")
	w.lock(pending, poller, polllock.PhasePending, 2*time.Second)
	// A run queued on GitHub has not claimed its placeholder: its
	// reference comes from lastCheck, recorded under the lock's id.
	w.lock(waiting, poller, polllock.PhasePending, 20*time.Second, "gha-dispatch")
	w.set(waiting, w.keys.check, lastcheck.LastCheck{TS: t0.Add(-25 * time.Second), Lock: poller,
		Runs: []plan.Ref{planRef("gha-dispatch 9002 https://github.example/acme/platform/actions/runs/9002")}})
	w.lock(dispatched, poller, polllock.PhaseDispatched, 40*time.Second, "gha-dispatch 9001 https://github.example/acme/platform/actions/runs/9001")
	w.lock(running, other, polllock.PhaseRunning, 3*time.Minute, "gha-dispatch 9000 https://github.example/acme/platform/actions/runs/9000")
	w.lock(stale, other, polllock.PhaseRunning, 20*time.Minute, "gha-dispatch 8999 https://github.example/acme/platform/actions/runs/8999")
	var q quarantine.Quarantine
	q.Add(quarantine.Entry{Change: "comment/10042", Harness: "triage", At: t0.Add(-2 * time.Hour), TS: t0.Add(-90 * time.Minute),
		Reason: "dispatch refused 3 cycles in a row: HTTP 422 inputs too large", Attempts: 3})
	q.Fail("triage", "comment/10050", "HTTP 422 unexpected input", t0.Add(-5*time.Minute))
	w.set(quarantined, w.keys.quarantine, q.Marshal())
	w.set(deferred, w.keys.check, lastcheck.LastCheck{TS: t0.Add(-10 * time.Minute),
		Harness: map[string]time.Time{"triage": t0.Add(-25 * time.Minute)},
		Intents: map[string]lastcheck.Intent{"review": {Key: "review:acme/platform:jira:work_item:PROJ-7@1772624700000",
			Change: t0.Add(-15 * time.Minute), TS: t0.Add(-14 * time.Minute)}}})
	return w
}

func TestOverviewGolden(t *testing.T) {
	w := overviewWorld(t)
	cases := []struct {
		name, golden string
		opts         func(*Options)
	}{
		{"no metrics, no cursor", "overview.golden", func(*Options) {}},
		{"the cursor the pollers wrote", "overview_cursor.golden", func(*Options) {
			doc := `{"at":"2026-03-04T11:57:00Z","by":"` + poller + `","ts":"2026-03-04T11:59:30Z",` +
				`"pollers":{"` + poller + `":"2026-03-04T11:59:30Z"},"held":{"PROJ-7":"2026-03-04T11:35:00Z"}}`
			w.sim.SetOwnerPropertyDirect(jirasim.OwnerUser, botAcct, cursor.Key(repo), json.RawMessage(doc))
		}},
		{"metrics and cursor lag", "overview_metrics_cursor.golden", func(o *Options) {
			o.MetricsURL = metricsServer(t, pollerMetrics, pollerHealth, 200)
			o.Cursor = fakeCursor(Cursor{At: t0.Add(-95 * time.Second), By: poller, TS: t0.Add(-5 * time.Second),
				Pollers: map[string]time.Time{poller: t0.Add(-5 * time.Second), other: t0.Add(-65 * time.Second)}})
		}},
		{"json", "overview.json.golden", func(o *Options) {
			o.Format = FormatJSON
			o.Cursor = fakeCursor(Cursor{At: t0.Add(-95 * time.Second), By: poller, TS: t0.Add(-5 * time.Second)})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			o := w.options(&out)
			tc.opts(&o)
			got, err := w.run(o)
			if err != nil {
				t.Fatalf("%v\n%s", err, got)
			}
			if o.MetricsURL != "" {
				got = strings.ReplaceAll(got, strings.TrimSuffix(o.MetricsURL, "/metrics"), "http://poller.test")
			}
			golden(t, tc.golden, got)
			if calls := w.sim.Calls(); !onlyReads(calls) {
				t.Errorf("Jira calls %v, want one search and at most one cursor read", calls)
			}
			w.sim.SetOwnerPropertyDirect(jirasim.OwnerUser, botAcct, cursor.Key(repo), nil)
			if wr := w.writes(); len(wr) != 0 {
				t.Errorf("status wrote to Jira: %v", wr)
			}
		})
	}
}

func TestJSONFieldsStable(t *testing.T) {
	w := overviewWorld(t)
	var out bytes.Buffer
	o := w.options(&out)
	o.Format = FormatJSON
	got, err := w.run(o)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal([]byte(got), &rep); err != nil {
		t.Fatal(err)
	}
	in := rep.Inputs[0]
	phases := map[string]bool{}
	stale := 0
	for _, l := range in.Locks {
		phases[l.Phase] = true
		if l.Stale {
			stale++
		}
	}
	if len(in.Locks) != 5 || !phases["pending"] || !phases["dispatched"] || !phases["running"] || stale != 1 {
		t.Errorf("locks %+v", in.Locks)
	}
	for _, l := range in.Locks {
		if l.Item == "PROJ-3" && (len(l.Runs) != 1 || l.Runs[0].ID != "9002") {
			t.Errorf("placeholder lock's runs %+v, want the run lastCheck records (9002)", l.Runs)
		}
	}
	if len(in.Quarantined) != 1 || len(in.Failing) != 1 || len(in.Deferred) != 2 || rep.APICalls != 2 || in.Scanned != 8 {
		t.Errorf("report %+v", rep)
	}
}
