package core

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
)

// One decision over both kinds of harness: the runs in registration
// order, the entity-source run carrying the entity its trigger saw (the
// outsider's element filtered out), the event-only run carrying none.
func TestDecideWithMergesBothKindsOfHarness(t *testing.T) {
	cfg := config.Config{Authorization: config.Authorization{MinRole: event.RoleWrite}}
	reconcile := entityHarness(t, "reconcile", triageCommand, "", event.SystemJira)
	triage := mustHarness(t, "triage", `event.transition.kind == "comment_added"`)
	e, _ := newEngine(t, &cfg, reconcile, triage)
	en := workItem("dev", event.RoleWrite)
	en.Activity = append(en.Activity, entity.TextElement(entity.ElementComment, "1", en.Activity[1].Created.Add(-1), event.Actor{ID: "outsider", Kind: event.ActorHuman, Role: event.RoleNone}, "/fs-triage hi"))
	d := e.DecideWith(commentEvent("write", "human", "/fs-triage"), &Resolution{Entity: en})
	if d.Verdict != VerdictRun || len(d.Runs) != 2 || d.Runs[0].Harness != "reconcile" || d.Runs[1].Harness != "triage" {
		t.Fatalf("decision %+v", d)
	}
	if got := d.Runs[0].Entity; got == nil || len(got.Activity) != 1 || got.Activity[0].Actor.ID != "dev" {
		t.Fatalf("the entity-source run carries %+v; want the filtered entity", got)
	}
	if d.Runs[1].Entity != nil {
		t.Errorf("the event-only run carries an entity")
	}
	if len(en.Activity) != 3 {
		t.Errorf("the resolved entity was modified")
	}
	if !strings.Contains(d.Reason, "matched reconcile, triage") {
		t.Errorf("reason %q", d.Reason)
	}
}

// Without an entity-source harness for the event's system the decision
// is Decide's, unchanged, whatever the resolution.
func TestDecideWithEventOnlyIsDecide(t *testing.T) {
	cfg := config.Config{}
	gh := entityHarness(t, "gh", `true`, "", event.SystemGitHub)
	triage := mustHarness(t, "triage", `event.transition.kind == "comment_added"`)
	e, _ := newEngine(t, &cfg, gh, triage)
	for _, res := range []*Resolution{nil, {Err: errors.New("boom")}, {Entity: workItem("dev", event.RoleWrite)}} {
		ev := commentEvent("write", "human", "/fs-triage")
		if got, want := e.DecideWith(ev, res), e.Decide(ev); !reflect.DeepEqual(got, want) {
			t.Errorf("DecideWith = %+v; Decide = %+v", got, want)
		}
	}
}

// A failed resolution (or none) denies the entity-source harnesses only;
// an incomplete enumeration denies the harness it was for.
func TestDecideWithDenials(t *testing.T) {
	cfg := config.Config{}
	always := entityHarness(t, "always", `true`, "")
	triage := mustHarness(t, "triage", `event.transition.kind == "comment_added"`)
	unknownRole := workItem("dev", event.RoleWrite)
	unknownRole.Activity[0].Actor.Role = ""
	another := workItem("dev", event.RoleWrite)
	another.ID = 7 // not the event's work item
	tests := []struct {
		name    string
		res     *Resolution
		reason  string
		eventOK bool // the event-only harness is there and runs
		verdict string
	}{
		{"failed", &Resolution{Err: errors.New("HTTP 503")}, DenialUnresolved, true, VerdictRun},
		{"none resolved", nil, DenialUnresolved, true, VerdictRun},
		{"failed alone", &Resolution{Err: errors.New("HTTP 503")}, DenialUnresolved, false, VerdictDenied},
		{"incomplete", &Resolution{Entity: unknownRole}, DenialIncomplete, false, VerdictDenied},
		{"another entity", &Resolution{Entity: another}, DenialUnresolved, false, VerdictDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := []*harness.Harness{always}
			if tc.eventOK {
				hs = append(hs, triage)
			}
			e, _ := newEngine(t, &cfg, hs...)
			d := e.DecideWith(commentEvent("write", "human", "/x"), tc.res)
			if d.Verdict != tc.verdict || len(d.EntityDenied) != 1 || d.EntityDenied[0].Harness != "always" || d.EntityDenied[0].Reason != tc.reason {
				t.Fatalf("decision %s (%s), denied %+v", d.Verdict, d.Reason, d.EntityDenied)
			}
			if tc.eventOK != (len(d.Runs) == 1) {
				t.Fatalf("runs %v", d.Runs)
			}
			if !strings.Contains(d.Reason, "entity evaluation denied for always") {
				t.Errorf("reason %q", d.Reason)
			}
		})
	}
}

// The event's gate still comes first: a denied actor starts nothing,
// entity or not.
func TestDecideWithGateFirst(t *testing.T) {
	cfg := config.Config{Authorization: config.Authorization{MinRole: event.RoleWrite}}
	e, _ := newEngine(t, &cfg, entityHarness(t, "always", `true`, ""))
	d := e.DecideWith(commentEvent("read", "human", "/fs-triage"), &Resolution{Entity: workItem("dev", event.RoleWrite)})
	if d.Verdict != VerdictDenied || len(d.Runs) != 0 || len(d.EntityDenied) != 0 {
		t.Fatalf("decision %+v", d)
	}
	if !e.DecidesEntities(event.SystemJira) || e.DecidesEntities(event.SystemManual) {
		t.Errorf("DecidesEntities")
	}
}
