package examples

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
)

var at = time.Date(2026, 11, 4, 12, 0, 0, 0, time.UTC)

func actor(id string, role event.Role) event.Actor {
	return event.Actor{ID: id, Kind: event.ActorHuman, Role: role}
}

// githubEntity is a GitHub issue (or, with cp, pull request 12) with the
// given activity, newest first.
func githubEntity(cp bool, labels []string, activity ...entity.Element) *entity.Entity {
	en := &entity.Entity{Source: entity.Source{System: entity.SystemGitHub}, Kind: entity.KindWorkItem, ID: 12,
		URL: "https://github.com/acme/platform/issues/12", Repo: "acme/platform",
		State: entity.State{Title: "t", Status: "open", StatusCategory: entity.StatusTodo, Author: "octocat",
			Labels: labels, Assignees: []string{}, Created: at.Add(-time.Hour), Updated: at},
		Activity: activity}
	if cp {
		en.Kind, en.URL = entity.KindChangeProposal, "https://github.com/acme/platform/pull/12"
		en.State.ChangeProposal = &entity.ChangeProposal{HeadRef: "fix", BaseRef: "main"}
	}
	return en
}

func ghEvent(cp bool, kind string) *event.Event {
	ev := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 12, URL: "https://github.com/acme/platform/issues/12"},
		Transition: event.Transition{Kind: kind}, Actor: actor("dev", event.RoleWrite),
		State: event.State{Labels: []string{}}, Source: event.Source{System: event.SystemGitHub, RawType: "issues"}}
	if cp {
		ev.Entity.Kind, ev.Entity.URL = event.KindChangeProposal, "https://github.com/acme/platform/pull/12"
		ev.State.ChangeProposal = &event.ChangeProposal{ID: 12, HeadRepo: "acme/platform", BaseRepo: "acme/platform", HeadRef: "fix", BaseRef: "main", AuthorID: "octocat"}
	}
	return ev
}

// entityEngine is the engine of the entity examples (entities/.fullsend)
// and their harnesses.
func entityEngine(t *testing.T) (*core.Engine, *harness.Registry) {
	t.Helper()
	cfg, reg, err := harness.LoadDir("entities/.fullsend", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	eng, err := core.New(core.Options{Config: cfg, Harnesses: reg})
	if err != nil {
		t.Fatal(err)
	}
	return eng, reg
}

// The worked examples of docs/triggers.md decide as the docs say.
func TestEntityExamplesDecide(t *testing.T) {
	eng, _ := entityEngine(t)
	triage := entity.TextElement(entity.ElementComment, "1", at.Add(-time.Minute), actor("dev", event.RoleWrite), "/fs-triage please")
	outsider := entity.TextElement(entity.ElementComment, "2", at.Add(-time.Minute), actor("stranger", event.RoleNone), "/fs-triage please")
	handled := githubEntity(false, []string{}, triage)
	handled.Receipt = &entity.Receipt{Version: "v1:x", At: at, Run: "1", Outcome: "succeeded", Attempts: 1}
	failed := githubEntity(false, []string{}, triage)
	failed.Receipt = &entity.Receipt{Version: "v1:x", At: at, Run: "1", Outcome: "failed", Attempts: 1}
	label := func(role event.Role) entity.Element {
		return entity.Element{Kind: entity.ElementLabel, ID: "3", Created: at, Actor: actor("lead", role), Label: "needs-agent"}
	}
	review := func(id string, state string, min time.Duration) entity.Element {
		el := entity.TextElement(entity.ElementReview, id, at.Add(-min), actor("lead", event.RoleMaintain), "see inline")
		el.ReviewState = state
		return el
	}
	tests := []struct {
		name string
		en   *entity.Entity
		ev   *event.Event
		want string // the harness that runs, "" for none
	}{
		{"a writer's command", githubEntity(false, []string{}, triage), ghEvent(false, event.Edited), "triage-command"},
		{"the command, found without an event", githubEntity(false, []string{}, triage), nil, "triage-command"},
		{"an outsider's command", githubEntity(false, []string{}, outsider), ghEvent(false, event.Edited), ""},
		{"a command handled by a successful run", handled, nil, ""},
		{"a command whose run failed stays actionable", failed, nil, "triage-command"},
		{"needs-agent applied by a maintainer", githubEntity(false, []string{"needs-agent"}, label(event.RoleMaintain)), nil, "needs-agent"},
		{"needs-agent applied by a writer", githubEntity(false, []string{"needs-agent"}, label(event.RoleWrite)), nil, ""},
		{"new commits after changes were requested", githubEntity(true, []string{}, review("5", "changes_requested", 1)), ghEvent(true, event.Synchronized), "rereview"},
		{"new commits after an approval", githubEntity(true, []string{}, review("6", "approved", 1), review("5", "changes_requested", 9)), ghEvent(true, event.Synchronized), ""},
		{"no push, no re-review", githubEntity(true, []string{}, review("5", "changes_requested", 1)), nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.en.Version = entity.ComputeVersion(tc.en, nil)
			if err := tc.en.Validate(); err != nil {
				t.Fatal(err)
			}
			var got string
			if tc.ev == nil {
				d := eng.DecideEntity(core.Resolution{Entity: tc.en}, nil)
				for _, h := range d.Matched {
					got += h.Name
				}
			} else {
				for _, r := range eng.DecideWith(tc.ev, &core.Resolution{Entity: tc.en}).Runs {
					got += r.Harness
				}
			}
			if got != tc.want {
				t.Fatalf("ran %q, want %q", got, tc.want)
			}
		})
	}
}

// The triage harness's overlays select its run's settings by the
// entity's source system (docs/triggers.md, "Settings by source").
func TestEntityExampleOverlays(t *testing.T) {
	eng, reg := entityEngine(t)
	triage := entity.TextElement(entity.ElementComment, "1", at.Add(-time.Minute), actor("dev", event.RoleWrite), "/fs-triage please")
	jira := githubEntity(false, []string{}, triage)
	jira.Source.System, jira.Key, jira.URL = entity.SystemJira, "PROJ-12", "https://acme.atlassian.net/browse/PROJ-12"
	jiraEv := ghEvent(false, event.Edited)
	jiraEv.Source, jiraEv.Entity.Key, jiraEv.Entity.URL = event.Source{System: event.SystemJira, RawType: "issue_updated"}, jira.Key, jira.URL
	authorEv := ghEvent(false, event.Edited)
	authorEv.Actor.IsEntityAuthor = true
	h, _ := reg.Get("triage-command")
	tests := []struct {
		name           string
		en             *entity.Entity
		ev             *event.Event
		role, workflow string
		timeout        time.Duration
	}{
		{"jira", jira, jiraEv, "triage-jira", "fullsend-jira.yml", 40 * time.Minute},
		{"github", githubEntity(false, []string{}, triage), ghEvent(false, event.Edited), "triage-github", "", 20 * time.Minute},
		{"github, by the issue's author", githubEntity(false, []string{}, triage), authorEv, "triage-github", "", 10 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.en.Version = entity.ComputeVersion(tc.en, nil)
			if err := tc.en.Validate(); err != nil {
				t.Fatal(err)
			}
			d := eng.DecideWith(tc.ev, &core.Resolution{Entity: tc.en})
			if len(d.Runs) != 1 || d.Runs[0].Role != tc.role || d.Runs[0].Workflow != tc.workflow {
				t.Fatalf("decision %+v", d)
			}
			if s, err := h.SettingsFor(h.Input(tc.ev, d.Runs[0].Entity)); err != nil || s.Timeout != tc.timeout {
				t.Errorf("settings %+v, %v", s, err)
			}
		})
	}
}
