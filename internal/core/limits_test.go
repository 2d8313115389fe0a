package core

import (
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// A trigger stopped by limits.trigger_cost counts as no match and is
// logged with the harness name and the limit; the other harnesses still
// match.
func TestDecideLogsTriggerLimit(t *testing.T) {
	expr := `event.state.labels.exists(l, l == "absent")`
	tr, err := trigger.CompileWith(expr, trigger.Limits{Cost: 100})
	if err != nil {
		t.Fatal(err)
	}
	greedy := &harness.Harness{Name: "greedy", File: "greedy.yaml", Role: "g", Trigger: tr, TriggerText: expr, Enabled: true}
	e, logs := newEngine(t, &config.Config{}, greedy, mustHarness(t, "label", `"l5" in event.state.labels`))
	ev := labelEvent()
	for i := range 100 {
		ev.State.Labels = append(ev.State.Labels, "l"+strings.Repeat("x", i%7)+string(rune('0'+i%10)))
	}
	d := e.Decide(ev)
	if d.Verdict != VerdictRun || len(d.Runs) != 1 || d.Runs[0].Harness != "label" {
		t.Fatalf("Decide = %s %+v; want only label to run", d.Verdict, d.Runs)
	}
	want := `msg="trigger stopped by a limit; counted as no match" harness=greedy file=greedy.yaml limit=limits.trigger_cost value=100`
	if !strings.Contains(logs.String(), want) {
		t.Errorf("logs:\n%s\nwant a line containing\n%s", logs.String(), want)
	}
}
