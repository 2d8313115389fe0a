package core

import (
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// An entity-source harness is not given bare events: until the input
// drivers resolve entities it never runs from Decide, and it is no error.
// The event-only harnesses beside it decide as before.
func TestDecideSkipsEntitySourceHarnesses(t *testing.T) {
	tr, err := trigger.CompileEntity(`true`, trigger.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ent := &harness.Harness{Name: "reconcile", Role: "r", Trigger: tr, TriggerText: "true", Enabled: true,
		Entity: &harness.EntitySources{Sources: []string{event.SystemJira}, MinRole: event.RoleWrite}}
	cfg := config.Config{}
	triage := mustHarness(t, "triage", `event.transition.kind == "comment_added"`)
	e, logs := newEngine(t, &cfg, ent, triage)
	d := e.Decide(commentEvent("write", "human", "/fs-triage"))
	if d.Verdict != VerdictRun || len(d.Runs) != 1 || d.Runs[0].Harness != "triage" || len(d.Errors) != 0 {
		t.Fatalf("decision %+v", d)
	}
	e2, _ := newEngine(t, &cfg, ent)
	if d := e2.Decide(commentEvent("write", "human", "/fs-triage")); d.Verdict != VerdictNoMatch || len(d.Errors) != 0 {
		t.Fatalf("an entity harness alone: %+v", d)
	}
	if strings.Contains(logs.String(), "evaluation failed") {
		t.Errorf("the entity harness was evaluated on an event:\n%s", logs)
	}
}
