package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// A trigger stopped by limits.trigger_cost (possible only on an event
// larger than the schema allows: a valid one is covered by the compile
// check) is an error of its harness: listed in Decision.Errors and logged
// at error level, never counted as no match; the other harnesses still
// decide.
func TestDecideTriggerLimitIsAnError(t *testing.T) {
	expr := `event.state.labels.exists(l, l == "absent")`
	probe, err := trigger.CompileWith(expr, trigger.Limits{Cost: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trigger.CompileWith(expr, trigger.Limits{Cost: probe.WorstCost()})
	if err != nil {
		t.Fatal(err)
	}
	greedy := &harness.Harness{Name: "greedy", File: "greedy.yaml", Role: "g", Trigger: tr, TriggerText: expr, Enabled: true}
	ev := labelEvent()
	for i := range 3000 { // beyond the schema's 1000
		ev.State.Labels = append(ev.State.Labels, fmt.Sprintf("l%04d", i))
	}
	cases := []struct {
		name    string
		others  []*harness.Harness
		verdict string
		runs    int
	}{
		{"another harness matches", []*harness.Harness{mustHarness(t, "label", `"l0005" in event.state.labels`)}, VerdictRun, 1},
		{"alone", nil, VerdictError, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, logs := newEngine(t, &config.Config{}, append([]*harness.Harness{greedy}, tc.others...)...)
			d := e.Decide(ev)
			if d.Verdict != tc.verdict || len(d.Runs) != tc.runs {
				t.Fatalf("Decide = %s %+v; want %s with %d runs", d.Verdict, d.Runs, tc.verdict, tc.runs)
			}
			if len(d.Errors) != 1 || d.Errors[0].Harness != "greedy" || d.Errors[0].File != "greedy.yaml" ||
				!strings.Contains(d.Errors[0].Error(), "runtime cost limit") {
				t.Fatalf("Errors = %v; want greedy's cost limit", d.Errors)
			}
			want := `level=ERROR msg="trigger stopped by its cost limit: the harness could not decide; not counted as no match" ` +
				`harness=greedy file=greedy.yaml limit=limits.trigger_cost value=`
			if !strings.Contains(logs.String(), want) {
				t.Errorf("logs:\n%s\nwant a line containing\n%s", logs.String(), want)
			}
		})
	}
}

// The decision never depends on the machine's load: evaluation consults
// no clock. A nested comprehension over 200 labels, admitted by a cost
// limit that covers its worst case, matches each time even with a
// wall-clock budget of one nanosecond configured (limits.trigger_timeout,
// which used to make it "no match" when the machine was busy).
func TestDecisionIgnoresTheClock(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nlimits: {trigger_cost: 100000000, trigger_timeout: 1ns}\nagents:\n  - {name: nested, source: nested.yaml}\n",
		"nested.yaml": "role: r\ntrigger: 'event.state.labels.all(a, event.state.labels.all(b, a + b != \"x\"))'\n",
	})
	cfg, reg, err := harness.LoadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Options{Config: cfg, Harnesses: reg})
	if err != nil {
		t.Fatal(err)
	}
	ev := labelEvent()
	ev.State.Labels = nil
	for i := range 200 {
		ev.State.Labels = append(ev.State.Labels, fmt.Sprintf("%03d-%s", i, strings.Repeat("l", 6)))
	}
	if err := ev.Validate(); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if d := e.Decide(ev); d.Verdict != VerdictRun || len(d.Errors) != 0 {
			t.Fatalf("decision %d: %s (%s), errors %v; want run", i, d.Verdict, d.Reason, d.Errors)
		}
	}
}
