package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/fullsend-dev/fullsend/deploy/grafana/promql"
	"github.com/fullsend-dev/fullsend/deploy/grafana/scenario"
)

const file = "../fullsend.json"

var (
	exportedOnce sync.Once
	exported     Exported
	exportedErr  error
)

// exportedSeries are the series a poller exports after the scenario: the
// registry built as `fullsend poll --metrics-addr` builds it, fed by real
// cycles against the emulators.
func exportedSeries(t *testing.T) Exported {
	t.Helper()
	exportedOnce.Do(func() {
		samples, err := scenario.Run(context.Background(), scenario.Options{Seed: 1})
		if err != nil {
			exportedErr = err
			return
		}
		exported = Index(samples[len(samples)-1].Series)
	})
	if exportedErr != nil {
		t.Fatal(exportedErr)
	}
	return exported
}

func load(t *testing.T) (*Dashboard, []Query) {
	t.Helper()
	d, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := d.Queries()
	if err != nil {
		t.Fatal(err)
	}
	return d, qs
}

// Every metric, label and label value a panel queries is one fullsend
// exports.
func TestDashboardUsesExportedSeries(t *testing.T) {
	_, qs := load(t)
	for _, err := range CheckSeries(qs, exportedSeries(t)) {
		t.Error(err)
	}
}

// The dashboard answers the operator's questions (docs/operations.md,
// "Dashboard"): each topic has a query showing its series.
func TestDashboardCoversTheTopics(t *testing.T) {
	_, qs := load(t)
	for _, c := range []struct{ topic, metric, label, value string }{
		{"cycles per input driver", "fullsend_poll_cycles_total", "driver", "jira-poll"},
		{"failed cycles", "fullsend_poll_cycles_total", "result", "error"},
		{"failed items", "fullsend_poll_items_failed_total", "driver", "jira-poll"},
		{"dispatch latency", "fullsend_dispatch_latency_seconds_bucket", "output_driver", "gha-dispatch"},
		{"locks held", "fullsend_poll_locks_total", "outcome", "acquired"},
		{"locks lost", "fullsend_poll_locks_total", "outcome", "lost"},
		{"stale locks removed", "fullsend_poll_locks_total", "outcome", "stale_removed"},
		{"coalesced runs", "fullsend_runs_total", "outcome", "coalesced"},
		{"deferred runs", "fullsend_runs_total", "outcome", "rate_limited"},
		{"denied changes", "fullsend_poll_events_dropped_total", "reason", "denied"},
		{"dispatches by output driver", "fullsend_dispatches_total", "output_driver", "gha-dispatch"},
		{"failed dispatches", "fullsend_dispatches_total", "result", "failed"},
		{"429s", "fullsend_api_requests_total", "status", "429"},
		{"rate-limit waits", "fullsend_rate_limit_waits_total", "", ""},
		{"remaining API budget", "fullsend_api_rate_limit_remaining", "api", "jira"},
		{"quarantined changes", "fullsend_poll_changes_quarantined_total", "", ""},
		{"last successful cycle age", "fullsend_poll_last_success_timestamp_seconds", "driver", "jira-poll"},
	} {
		if !Shows(qs, c.metric, c.label, c.value) {
			t.Errorf("%s: no panel shows %s{%s=%q}", c.topic, c.metric, c.label, c.value)
		}
	}
}

// The dashboard imports into Grafana 11: a recent schema, a Prometheus
// data source variable that every panel uses, a driver variable filled
// from an exported label.
func TestDashboardVariables(t *testing.T) {
	d, _ := load(t)
	if d.SchemaVersion < 39 || d.UID == "" || d.Title == "" {
		t.Errorf("schemaVersion %d uid %q title %q: want ≥ 39 and both set", d.SchemaVersion, d.UID, d.Title)
	}
	vars := map[string]Variable{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v
	}
	if ds := vars["datasource"]; ds.Type != "datasource" || string(ds.Query) != `"prometheus"` {
		t.Errorf("datasource variable = %+v, want a prometheus datasource variable", ds)
	}
	drv := vars["driver"]
	var q struct{ Query string }
	if err := json.Unmarshal(drv.Query, &q); err != nil || drv.Datasource == nil || drv.Datasource.UID != "${datasource}" {
		t.Fatalf("driver variable %+v (%v): want a query on ${datasource}", drv, err)
	}
	metric, label, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(q.Query, "label_values("), ")"), ", ")
	if !ok || !exportedSeries(t).hasLabel(metric, label, "") || label != "driver" {
		t.Errorf("driver variable query %q: want label_values(<exported metric>, driver)", q.Query)
	}
	for _, p := range d.Panels {
		if p.Type != "row" && p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: datasource %+v, want ${datasource}", p.Title, p.Datasource)
		}
	}
}

// The checks find what they are for: a metric fullsend does not export,
// a label or label value it lacks, a by-label a metric lacks, panels
// without a data source or with a duplicate id, a query that is not PromQL.
func TestChecksFindProblems(t *testing.T) {
	e := Index([]promql.Series{
		{Name: "fullsend_x_total", Labels: map[string]string{"driver": "jira-poll", "outcome": "lost"}},
		{Name: "fullsend_h_bucket", Labels: map[string]string{"le": "1"}},
	})
	ds := &Ref{Type: "prometheus", UID: "${datasource}"}
	for _, tc := range []struct {
		name, expr, want string
		panel            func(*Panel)
	}{
		{"good", `sum by (driver) (rate(fullsend_x_total{outcome=~"lost"}[5m]))`, "", nil},
		{"good histogram", `histogram_quantile(0.9, sum by (le) (rate(fullsend_h_bucket[5m])))`, "", nil},
		{"good without", `sum without (outcome) (fullsend_x_total)`, "", nil},
		{"good functions the dashboard does not use", `predict_linear(fullsend_x_total[1h], 60) > bool 0`, "", nil},
		{"unknown metric", `rate(fullsend_gone_total[5m])`, `does not export "fullsend_gone_total"`, nil},
		{"unknown metric in a subquery", `max_over_time(rate(fullsend_gone_total[5m])[1h:])`, `does not export "fullsend_gone_total"`, nil},
		{"unknown metric by __name__", `{__name__="fullsend_gone_total"}`, `does not export "fullsend_gone_total"`, nil},
		{"metric by a pattern", `{__name__=~"fullsend_.*"}`, "selects metrics by a pattern", nil},
		{"histogram suffix on a counter", `rate(fullsend_x_total_bucket[5m])`, `does not export "fullsend_x_total_bucket"`, nil},
		{"unknown label value", `fullsend_x_total{outcome="won"}`, `no series with outcome="won"`, nil},
		{"unknown alternative", `fullsend_x_total{outcome=~"lost|won"}`, `no series with outcome="won"`, nil},
		{"unknown by label", `sum by (reason) (fullsend_x_total)`, "has no label reason", nil},
		{"unknown by label, grouping after", `sum(fullsend_x_total) by (reason)`, "has no label reason", nil},
		{"unknown variable label", `fullsend_x_total{result=~"$result"}`, "has no label result", nil},
		{"no datasource", `fullsend_x_total`, "needs a datasource", func(p *Panel) { p.Datasource = nil }},
		{"not PromQL", `rate(fullsend_x_total[5m]`, "PromQL: 1:", nil},
		{"unknown function", `rates(fullsend_x_total[5m])`, `unknown function with name "rates"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Panel{ID: 1, Type: "timeseries", Title: tc.name, Datasource: ds,
				Targets: []Target{{RefID: "A", Datasource: ds, Expr: tc.expr}}}
			if tc.panel != nil {
				tc.panel(&p)
			}
			d := &Dashboard{Panels: []Panel{p}}
			qs, err := d.Queries()
			errs := append([]error{err}, CheckSeries(qs, e)...)
			got := errors.Join(errs...)
			if tc.want == "" && got != nil || tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)) {
				t.Errorf("%s: got %v, want %q", tc.expr, got, tc.want)
			}
		})
	}
	d := &Dashboard{Panels: []Panel{{ID: 3, Type: "row", Title: "a"}, {ID: 3, Type: "row", Title: "b"}}}
	if _, err := d.Queries(); err == nil || !strings.Contains(err.Error(), "id 3") {
		t.Errorf("duplicate ids: %v", err)
	}
}
