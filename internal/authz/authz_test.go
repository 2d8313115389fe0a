package authz

import (
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
)

func ev(system, kind, actorID, actorKind, role string) *event.Event {
	e := &event.Event{
		Repo:       "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: 1, URL: "https://x/1"},
		Transition: event.Transition{Kind: kind},
		Actor:      event.Actor{ID: actorID, Kind: actorKind, Role: event.Role(role)},
		State:      event.State{Labels: []string{}},
		Source:     event.Source{System: system, RawType: "t"},
	}
	switch kind {
	case event.CommentAdded:
		e.Transition.Comment = &event.Comment{Body: "/fs-triage go", Command: "/fs-triage"}
	case event.LabelChanged:
		e.Transition.Label = &event.Label{Name: "bug", Action: "added"}
	}
	return e
}

func TestDecide(t *testing.T) {
	removed := ev("github", event.LabelChanged, "u1", "human", "read")
	removed.Transition.Label.Action = "removed"
	cases := []struct {
		name    string
		min     event.Role
		bots    []string
		ev      *event.Event
		allowed bool
		reason  string
	}{
		{"write meets write", "write", nil, ev("jira", event.CommentAdded, "u1", "human", "write"), true, "role write"},
		{"admin above write", "write", nil, ev("jira", event.CommentAdded, "u1", "human", "admin"), true, "role admin"},
		{"maintain above write", "write", nil, ev("github", event.Opened, "u1", "human", "maintain"), true, "role maintain"},
		{"triage below write", "write", nil, ev("github", event.Opened, "u1", "human", "triage"), false, "below min_role write"},
		{"read below write", "write", nil, ev("jira", event.CommentAdded, "u1", "human", "read"), false, "below min_role write"},
		{"external below write", "write", nil, ev("jira", event.CommentAdded, "u1", "human", "external"), false, "below min_role write"},
		{"none meets none", "none", nil, ev("github", event.Opened, "u1", "human", "none"), true, "role none"},
		{"external equals none", "none", nil, ev("github", event.Opened, "u1", "human", "external"), true, "role external"},
		{"triage meets triage", "triage", nil, ev("github", event.Opened, "u1", "human", "triage"), true, "role triage"},
		{"empty min defaults to write", "", nil, ev("github", event.Opened, "u1", "human", "triage"), false, "below min_role write"},
		{"own bot loop guard", "write", []string{"bot-1"}, ev("github", event.Opened, "bot-1", "human", "admin"), false, "loop guard"},
		{"own bot even on schedule", "write", []string{"bot-1"}, ev("schedule", event.Updated, "bot-1", "bot", "none"), false, "loop guard"},
		{"bot comment denied", "read", nil, ev("github", event.CommentAdded, "dependabot[bot]", "bot", "admin"), false, "bot actor"},
		{"bot non-command allowed by role", "write", nil, ev("github", event.Opened, "renovate[bot]", "bot", "write"), true, "role write"},
		{"github label added by reader", "write", nil, ev("github", event.LabelChanged, "u1", "human", "read"), true, "label \"bug\" added"},
		{"github label removed needs role", "write", nil, removed, false, "below min_role"},
		{"jira label added needs role", "write", nil, ev("jira", event.LabelChanged, "u1", "human", "external"), false, "below min_role"},
		{"schedule passes", "admin", nil, ev("schedule", event.Updated, "cron", "bot", "none"), true, "scheduled"},
		{"unknown role", "write", nil, ev("github", event.Opened, "u1", "human", "owner"), false, "unknown role"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPolicy(c.min, c.bots...)
			if err != nil {
				t.Fatal(err)
			}
			d := p.Decide(c.ev)
			if d.Allowed != c.allowed || !strings.Contains(d.Reason, c.reason) {
				t.Fatalf("Decide = %+v, want allowed=%v reason containing %q", d, c.allowed, c.reason)
			}
		})
	}
}

func TestNewPolicyRejectsUnknownRole(t *testing.T) {
	if _, err := NewPolicy("owner"); err == nil || !strings.Contains(err.Error(), `min_role "owner"`) {
		t.Fatalf("err = %v", err)
	}
}
