package jsonout

import (
	"encoding/json"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/entity/entitytest"
)

// A plan entry carries normalized_entity only for a run with an entity.
func TestEntryCarriesTheEntity(t *testing.T) {
	ev := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-123", URL: "https://acme.atlassian.net/browse/PROJ-123"},
		Transition: event.Transition{Kind: event.Opened}, Actor: event.Actor{ID: "u", Kind: event.ActorHuman, Role: "write"},
		State: event.State{Labels: []string{}}, Source: event.Source{System: event.SystemJira, RawType: "issue"}}
	run := plan.Run{Harness: "triage", Role: "triage", Event: ev, Key: scope.KeyOf("triage", ev, ""), WorkItem: plan.WorkItemOf(ev)}
	plain, _ := json.Marshal(EntryOf(run))
	if strings.Contains(string(plain), plan.InNormalizedEntity) {
		t.Fatalf("an event-only entry has %s: %s", plan.InNormalizedEntity, plain)
	}
	run.Entity = entitytest.WorkItem(t)
	var e map[string]string
	data, _ := json.Marshal(EntryOf(run))
	if err := json.Unmarshal(data, &e); err != nil || len(e) != len(plan.Names) {
		t.Fatalf("entry %s (%v)", data, err)
	}
	if got, err := entity.Decode([]byte(e[plan.InNormalizedEntity])); err != nil || got.Key != "PROJ-123" {
		t.Fatalf("normalized_entity %v (%v)", got, err)
	}
}
