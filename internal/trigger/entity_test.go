package trigger

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/entity/entitytest"
	"github.com/fullsend-dev/fullsend/internal/event"
)

func TestGuardRule(t *testing.T) {
	tests := []struct {
		expr string
		bad  []string // "line:col" of each unguarded read, in order
	}{
		{`entity.kind == "work_item"`, nil},
		{`event == null`, nil},
		{`event != null && event.repo == "a"`, nil},
		{`event.repo == "a" && event != null`, nil}, // && is commutative
		{`null != event && event.repo == "a"`, nil},
		{`!(event == null) && event.repo == "a"`, nil},
		{`entity.kind == "x" && event != null && has(event.transition.comment)`, nil},
		{`event == null || event.transition.kind == "opened"`, nil},
		{`event != null ? event.actor.role == "admin" : entity.kind == "x"`, nil},
		{`event == null ? entity.kind == "x" : event.actor.role == "admin"`, nil},
		{`entity.activity.exists(event, event.kind == "comment")`, nil}, // a comprehension variable named event
		{`event.repo == "a"`, []string{"1:1"}},
		{`has(event.transition)`, []string{"1:5"}},
		{`event.?repo.orValue("") == "a"`, []string{"1:1"}},
		{`event != null || event.repo == "a"`, []string{"1:18"}},
		{`event == null && event.repo == "a"`, []string{"1:18"}},
		{`(event != null && entity.kind == "x") || event.repo == "a"`, []string{"1:42"}},
		{`event == null ? event.repo == "a" : false`, []string{"1:17"}},
		{`entity.kind == "x" && event.repo == "a" && event.source.system == "b"`, []string{"1:23", "1:44"}},
		{"entity.kind == \"x\" &&\n  event.state.labels.exists(l, l == \"x\")", []string{"2:3"}},
		{`[event.repo].size() > 0`, []string{"1:2"}},
		{`[event][0].repo == "a"`, []string{"1:2"}},
		{`[event].size() == 1`, []string{"1:2"}},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			tr, err := CompileEntity(tc.expr, Limits{})
			if len(tc.bad) == 0 {
				if err != nil || tr == nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a CompileError", err)
			}
			var got []string
			for _, p := range ce.All() {
				got = append(got, fmt.Sprintf("%d:%d", p.Line, p.Col))
				if !strings.Contains(p.Msg, "guard this read with `event != null && …`") {
					t.Errorf("message %q", p.Msg)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.bad, " ") {
				t.Errorf("unguarded reads at %v, want %v", got, tc.bad)
			}
		})
	}
}

func TestNeverWithoutEvent(t *testing.T) {
	tests := []struct {
		expr  string
		never bool
	}{
		{`entity.state.labels.exists(l, l == "needs-agent")`, false},
		{`event == null`, false},
		{`event == null || event.transition.kind == "opened"`, false},
		{`event != null && event.transition.kind == "comment_added"`, true},
		{`entity.kind == "work_item" && event != null && event.repo == "a"`, true},
		{`event != null ? event.repo == "a" : false`, true},
		{`event != null ? event.repo == "a" : entity.kind == "work_item"`, false},
		{`(event != null && event.repo == "a") || entity.state.status_category == "todo"`, false},
		{`false`, true},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			tr, err := CompileEntity(tc.expr, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if tr.NeverWithoutEvent() != tc.never {
				t.Errorf("NeverWithoutEvent = %v, want %v", tr.NeverWithoutEvent(), tc.never)
			}
		})
	}
}

func TestEntityTriggerEval(t *testing.T) {
	en := entitytest.Golden(t, "jira-work-item.json")
	ev := &event.Event{Repo: "acme/platform", Transition: event.Transition{Kind: event.CommentAdded}}
	tests := []struct {
		expr           string
		noEvent, event bool
	}{
		{`entity.state.labels.exists(l, l == "needs-agent")`, true, true},
		{`entity.source.system == "jira" && entity.key == "PROJ-123" && entity.id == 10042`, true, true},
		{`entity.activity.exists(a, a.kind == "comment" && a.command == "/fs-triage" && a.actor.role == "write")`, true, true},
		{`entity.activity[0].actor.is_entity_author`, false, false},
		{`entity.state.updated > timestamp("2026-11-03T00:00:00Z")`, true, true},
		{`!has(entity.receipt)`, true, true},
		{`entity.version.startsWith("v1:")`, true, true},
		{`event != null && event.transition.kind == "comment_added"`, false, true},
		{`event == null`, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			tr, err := CompileEntity(tc.expr, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				ev   *event.Event
				want bool
			}{{nil, tc.noEvent}, {ev, tc.event}} {
				got, err := tr.Eval(NewEntityInput(en, c.ev))
				if err != nil || got != c.want {
					t.Errorf("event %v: got %v, %v; want %v", c.ev != nil, got, err, c.want)
				}
			}
		})
	}
}

func TestEntityTriggerCompileErrors(t *testing.T) {
	for expr, want := range map[string]string{
		`entity.state.labelz.size() > 0`: "labelz",
		`entity.kind`:                    "a trigger must be a condition",
		`entity.kind == 1`:               "cannot be applied",
		`event.repoo == "a"`:             "repoo",
	} {
		if _, err := CompileEntity(expr, Limits{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", expr, err, want)
		}
	}
	// Nested comprehensions over the activity and its labels are bounded
	// by the entity schema's sizes.
	if _, err := CompileEntity(`entity.activity.all(a, entity.activity.all(b, entity.state.labels.all(l, l != a.body + b.body)))`, Limits{}); err == nil ||
		!strings.Contains(err.Error(), "too expensive") {
		t.Errorf("an unbounded-looking trigger compiled: %v", err)
	}
}

func TestInputKindsDoNotMix(t *testing.T) {
	et, err := CompileEntity(`entity.kind == "work_item"`, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	vt, err := Compile(`event.repo == "a"`)
	if err != nil {
		t.Fatal(err)
	}
	if !et.IsEntity() || vt.IsEntity() {
		t.Fatal("IsEntity")
	}
	en := entitytest.Golden(t, "github-work-item.json")
	if _, err := et.Eval(NewInput(&event.Event{Repo: "a"})); !errors.Is(err, errInputKind) {
		t.Errorf("entity trigger on an event input: %v", err)
	}
	if _, err := vt.Eval(NewEntityInput(en, &event.Event{Repo: "a"})); !errors.Is(err, errInputKind) {
		t.Errorf("event trigger on an entity input: %v", err)
	}
	if _, err := et.Eval(NewEntityInput(nil, nil)); err == nil {
		t.Error("nil entity evaluated")
	}
}

// The worked example of docs/triggers.md (with the role test that the
// activity filter makes a second line of defence): a label that means "needs an
// agent", applied by a maintainer, on an open work item.
func TestNeedsAgentLabelExample(t *testing.T) {
	const expr = `entity.kind == "work_item" &&
  "needs-agent" in entity.state.labels &&
  entity.state.status_category != "done" &&
  entity.activity.exists(a, a.kind == "label" && a.label == "needs-agent" &&
    a.actor.role in ["maintain", "admin"])`
	tr, err := CompileEntity(expr, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.NeverWithoutEvent() {
		t.Error("the example is warned about")
	}
	en := entitytest.Golden(t, "jira-work-item.json") // labelled needs-agent by a maintainer
	for name, change := range map[string]func(*entity.Entity) bool{
		"as is":               func(*entity.Entity) bool { return true },
		"done":                func(e *entity.Entity) bool { e.State.StatusCategory = entity.StatusDone; return false },
		"label gone":          func(e *entity.Entity) bool { e.State.Labels = []string{"bug"}; return false },
		"applied by a writer": func(e *entity.Entity) bool { e.Activity[1].Actor.Role = event.RoleWrite; return false },
	} {
		c := *en
		c.State.Labels = append([]string(nil), en.State.Labels...)
		c.Activity = append([]entity.Element(nil), en.Activity...)
		want := change(&c)
		for _, ev := range []*event.Event{nil, {Repo: "acme/platform"}} {
			if got, err := tr.Eval(NewEntityInput(&c, ev)); err != nil || got != want {
				t.Errorf("%s (event %v): got %v, %v; want %v", name, ev != nil, got, err, want)
			}
		}
	}
}

// `now` is the evaluation's time (NewEntityInputAt); without one it is
// the zero timestamp, so a staleness condition is false.
func TestEntityTriggerNow(t *testing.T) {
	en := entitytest.Golden(t, "jira-work-item.json")
	stale := `event == null && entity.state.updated < now - duration("168h")`
	tr, err := CompileEntity(stale, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.NeverWithoutEvent() {
		t.Error("a condition on now can match without an event")
	}
	for _, tc := range []struct {
		now  time.Time
		want bool
	}{
		{en.State.Updated.Add(7*24*time.Hour + time.Second), true},
		{en.State.Updated.Add(6 * 24 * time.Hour), false},
		{time.Time{}, false},
	} {
		got, err := tr.Eval(NewEntityInputAt(en, nil, tc.now))
		if err != nil || got != tc.want {
			t.Errorf("now %v: got %v, %v; want %v", tc.now, got, err, tc.want)
		}
	}
	if got, err := tr.Eval(NewEntityInput(en, nil)); err != nil || got {
		t.Errorf("without a clock: %v, %v", got, err)
	}
}
