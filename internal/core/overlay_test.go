package core

import (
	"bytes"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// loadEngine loads a configuration directory holding the given harness
// files (name → YAML, registered in that order) through the one harness
// loader.
func loadEngine(t *testing.T, harnesses ...[2]string) (*Engine, *bytes.Buffer) {
	t.Helper()
	files := map[string]string{}
	agents := ""
	for _, h := range harnesses {
		files["harness/"+h[0]+".yaml"] = h[1]
		agents += "  - name: " + h[0] + "\n    source: harness/" + h[0] + ".yaml\n"
	}
	files["config.yaml"] = "version: 1\nrepo: acme/platform\nforge: github\nauthorization:\n  min_role: write\nagents:\n" + agents
	cfg, reg, err := harness.LoadDir(testfs.WriteTree(t, files), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	e, err := New(Options{Config: cfg, Harnesses: reg, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return e, &logs
}

// githubIssue is GitHub issue 12 of acme/platform with a writer's
// /fs-triage comment, and the event of that comment.
func githubIssue() (*entity.Entity, *event.Event) {
	at := time.Date(2026, 11, 3, 14, 0, 0, 0, time.UTC)
	en := &entity.Entity{Source: entity.Source{System: entity.SystemGitHub}, Kind: entity.KindWorkItem, ID: 12,
		URL: "https://github.com/acme/platform/issues/12", Repo: "acme/platform",
		State: entity.State{Labels: []string{}, Assignees: []string{}, Created: at, Updated: at},
		Activity: []entity.Element{entity.TextElement(entity.ElementComment, "9", at,
			event.Actor{ID: "dev", Kind: event.ActorHuman, Role: event.RoleWrite}, "/fs-triage check it")}}
	ev := commentEvent("write", "human", "/fs-triage")
	ev.Entity = event.Entity{Kind: event.KindWorkItem, ID: 12, URL: en.URL}
	ev.Source = event.Source{System: event.SystemGitHub, RawType: "issue_comment", RawAction: "created"}
	return en, ev
}

const sourceOverlays = `role: triage
trigger: entity.activity.exists(a, a.kind == "comment" && a.command == "/fs-triage")
entity:
  sources: [jira, github]
dispatch:
  workflow: fullsend-run.yml
run:
  timeout: 30m
overlays:
  - when: entity.source.system == "jira"
    role: jira-triage
    dispatch:
      workflow: fullsend-jira.yml
  - when: entity.source.system == "github"
    role: github-triage
  - when: event != null && event.actor.kind == "human"
    run:
      timeout: 5m
`

// An entity-source harness's overlays select on entity.source.system:
// the Jira entity's run gets overlay A, the GitHub one's overlay B, each
// with the other settings the harness's own.
func TestOverlaysSelectBySourceSystem(t *testing.T) {
	e, _ := loadEngine(t, [2]string{"triage", sourceOverlays})
	gh, ghEv := githubIssue()
	tests := []struct {
		name           string
		en             *entity.Entity
		ev             *event.Event
		role, workflow string
		applied        []int
	}{
		{"jira", workItem("dev", event.RoleWrite), commentEvent("write", "human", "/fs-triage"), "jira-triage", "fullsend-jira.yml", []int{0}},
		{"github", gh, ghEv, "github-triage", "fullsend-run.yml", []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := e.DecideWith(tc.ev, &Resolution{Entity: tc.en})
			if d.Verdict != VerdictRun || len(d.Runs) != 1 || len(d.OverlayErrors) != 0 {
				t.Fatalf("decision %+v", d)
			}
			r := d.Runs[0]
			if r.Role != tc.role || r.Workflow != tc.workflow || r.Entity == nil {
				t.Errorf("run role %q workflow %q entity %v; want %q %q", r.Role, r.Workflow, r.Entity != nil, tc.role, tc.workflow)
			}
			if got := r.Inputs()["role"]; got != tc.role {
				t.Errorf("role input %q, want %q", got, tc.role)
			}
			h, _ := e.reg.Get("triage")
			s, err := h.SettingsFor(h.Input(tc.ev, tc.en))
			if err != nil || s.Timeout != 5*time.Minute || !reflect.DeepEqual(s.Applied, append(tc.applied, 2)) {
				t.Errorf("settings %+v, %v", s, err)
			}
			if s, _ := h.SettingsFor(h.Input(nil, tc.en)); s.Timeout != 30*time.Minute || !reflect.DeepEqual(s.Applied, tc.applied) {
				t.Errorf("without an event: settings %+v", s)
			}
		})
	}
}

// An event-only harness's overlays see `event` alone; every matching
// overlay applies in order, a later one winning for the settings it sets.
func TestOverlaysEventOnlyInOrder(t *testing.T) {
	e, _ := loadEngine(t, [2]string{"triage", `role: triage
trigger: event.transition.kind == "comment_added"
run:
  env: [BASE_TOKEN]
overlays:
  - when: event.source.system == "jira"
    role: jira-triage
    dispatch: {workflow: fullsend-jira.yml}
    run: {env: [JIRA_TOKEN], timeout: 1h}
  - when: '"bug" in event.state.labels'
    role: bug-triage
    run: {env: []}
  - when: event.source.system == "gitlab"
    role: gitlab-triage
`})
	h, _ := e.reg.Get("triage")
	jira := commentEvent("write", "human", "/fs-triage") // labels: bug
	_, gh := githubIssue()
	gh.State.Labels = []string{}
	tests := []struct {
		name           string
		ev             *event.Event
		role, workflow string
		env            []string
		timeout        time.Duration
	}{
		{"jira bug: both, the later wins", jira, "bug-triage", "fullsend-jira.yml", []string{}, time.Hour},
		{"github: none", gh, "triage", "", []string{"BASE_TOKEN"}, 30 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := e.Decide(tc.ev)
			if len(d.Runs) != 1 || d.Runs[0].Role != tc.role || d.Runs[0].Workflow != tc.workflow {
				t.Fatalf("decision %+v", d)
			}
			s, err := h.SettingsFor(h.Input(tc.ev, nil))
			if err != nil || !reflect.DeepEqual(s.Env, tc.env) || s.Timeout != tc.timeout {
				t.Errorf("settings %+v, %v", s, err)
			}
		})
	}
}

// A `when` that cannot be evaluated leaves the harness's own settings
// (none of its overlays, not even the ones that matched before it),
// logged and counted in the decision; the run is still planned.
func TestOverlayEvalErrorKeepsBase(t *testing.T) {
	e, logs := loadEngine(t, [2]string{"triage", `role: triage
trigger: event.transition.kind == "comment_added"
overlays:
  - when: event.source.system == "jira"
    role: jira-triage
  - when: event.state.labels[3] == "x"
    role: never
`})
	d := e.Decide(commentEvent("write", "human", "/fs-triage"))
	if d.Verdict != VerdictRun || len(d.Runs) != 1 || d.Runs[0].Role != "triage" {
		t.Fatalf("decision %+v", d)
	}
	var oe *harness.OverlayError
	if len(d.OverlayErrors) != 1 || d.OverlayErrors[0].Harness != "triage" || !errors.As(d.OverlayErrors[0].Err, &oe) || oe.Index != 1 || oe.Line != 6 {
		t.Fatalf("overlay errors %+v", d.OverlayErrors)
	}
	if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "overlays[1].when") {
		t.Errorf("log: %s", logs)
	}
	e.LogDecision(d)
	if !strings.Contains(logs.String(), "overlay_errors=1") {
		t.Errorf("decision log: %s", logs)
	}
}

// A harness without overlays plans exactly the run it always did.
func TestNoOverlaysPlanUnchanged(t *testing.T) {
	e, _ := loadEngine(t, [2]string{"triage", "role: triage\ntrigger: event.transition.kind == \"comment_added\"\ndispatch: {workflow: x.yml}\n"},
		[2]string{"reconcile", "role: reconcile\ntrigger: \"true\"\nentity: {sources: [jira]}\n"})
	ev := commentEvent("write", "human", "/fs-triage")
	en := workItem("dev", event.RoleWrite)
	d := e.DecideWith(ev, &Resolution{Entity: en})
	tr, _ := e.reg.Get("triage")
	rc, _ := e.reg.Get("reconcile")
	if len(d.Runs) != 2 {
		t.Fatalf("runs %+v", d.Runs)
	}
	want := e.RunFor(rc, ev)
	want.Entity = d.Runs[1].Entity
	if !reflect.DeepEqual(d.Runs[0], e.RunFor(tr, ev)) || !reflect.DeepEqual(d.Runs[1], want) || want.Entity == nil {
		t.Fatalf("runs %+v", d.Runs)
	}
	if d.Runs[0].Workflow != "x.yml" || d.Runs[1].Role != "reconcile" {
		t.Errorf("runs %+v", d.Runs)
	}
}
