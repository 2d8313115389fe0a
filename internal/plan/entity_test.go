package plan

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// bigEntity is a valid Jira entity with n comments of size code points
// each, newest first.
func bigEntity(t *testing.T, n, size int) *entity.Entity {
	t.Helper()
	at := time.Date(2026, 11, 3, 14, 0, 0, 0, time.UTC)
	en := &entity.Entity{
		Source: entity.Source{System: entity.SystemJira}, Kind: entity.KindWorkItem, ID: 10042, Key: "PROJ-123",
		URL: "https://acme.atlassian.net/browse/PROJ-123", Repo: "acme/platform",
		State: entity.State{Title: "It breaks", Status: "Open", StatusCategory: entity.StatusTodo, Author: "reporter",
			Labels: []string{"bug"}, Assignees: []string{}, Created: at.Add(-time.Hour), Updated: at},
	}
	for i := range n {
		text := "/fs-triage " + strings.Repeat("é<\"", size/3)
		en.Activity = append(en.Activity, entity.TextElement(entity.ElementComment, fmt.Sprint(100+n-i), at.Add(-time.Duration(i)*time.Minute),
			event.Actor{ID: "dev", Kind: event.ActorHuman, Role: event.RoleWrite}, text))
	}
	en.Version = entity.ComputeVersion(en, nil)
	if err := en.Validate(); err != nil {
		t.Fatal(err)
	}
	return en
}

func entityRun(t *testing.T, en *entity.Entity, comment string) Run {
	t.Helper()
	cmd, instr := event.ParseCommand(comment)
	ev := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-123", URL: "https://acme.atlassian.net/browse/PROJ-123"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: comment, Command: cmd, Instruction: instr}},
		Actor:      event.Actor{ID: "dev", Kind: event.ActorHuman, Role: event.RoleWrite},
		State:      event.State{Labels: []string{"bug"}}, Source: event.Source{System: event.SystemJira, RawType: "comment"}}
	return Run{Harness: "triage", Role: "triage", Event: ev, Key: "triage:acme/platform:jira:work_item:10042", WorkItem: WorkItemOf(ev), Entity: en}
}

// A run of an entity-source harness carries its entity as the tenth
// input; one too large is cut (texts of the oldest elements, then the
// oldest elements), stays a valid NormalizedEntity, and the event is cut
// only when the entity has no activity left.
func TestFitInputsEntity(t *testing.T) {
	long := "/fs-triage " + strings.Repeat("x", 4000)
	tests := []struct {
		name       string
		en         *entity.Entity
		comment    string
		limit      int
		cut        bool // some texts are cut
		dropped    bool // some elements are dropped
		eventIsCut bool // the event's comment was cut
	}{
		{"small: whole", bigEntity(t, 3, 100), "/fs-triage go", MaxInputsSize, false, false, false},
		{"large: the oldest texts cut", bigEntity(t, 50, 4000), "/fs-triage go", MaxInputsSize, true, false, false},
		{"larger than the cut texts: the oldest elements dropped", bigEntity(t, 50, 4000), "/fs-triage go", 8000, true, true, false},
		{"no activity left: the event is cut", bigEntity(t, 50, 4000), long, 4000, true, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := entityRun(t, tc.en, tc.comment)
			in, err := r.FitInputs(tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if n := inputsSize(in); n > tc.limit {
				t.Fatalf("inputs %d bytes", n)
			}
			got, err := entity.Decode([]byte(in[InNormalizedEntity]))
			if err != nil {
				t.Fatalf("normalized_entity is not a valid entity: %v", err)
			}
			whole := 0
			for whole < len(got.Activity) && !got.Activity[whole].Truncated {
				whole++
			}
			for i, el := range got.Activity[whole:] {
				if !el.Truncated || utf8.RuneCountInString(el.Body) > CutBody || el.Command != "/fs-triage" || el.OriginalLength != utf8.RuneCountInString(tc.en.Activity[whole+i].Body) {
					t.Fatalf("element %d: %+v", whole+i, el)
				}
			}
			t.Logf("%d of %d elements, %d whole; %d bytes", len(got.Activity), len(tc.en.Activity), whole, inputsSize(in))
			if cut := whole < len(got.Activity) || len(got.Activity) < len(tc.en.Activity); cut != tc.cut {
				t.Errorf("texts cut %v, want %v", cut, tc.cut)
			}
			if dropped := len(got.Activity) < len(tc.en.Activity); dropped != tc.dropped {
				t.Errorf("elements dropped %v, want %v", dropped, tc.dropped)
			}
			if tc.eventIsCut && len(got.Activity) != 0 {
				t.Errorf("the event was cut before the entity's activity")
			}
			if (len(got.Activity) < len(tc.en.Activity)) != got.ActivityTruncated {
				t.Errorf("activity_truncated %v with %d of %d elements", got.ActivityTruncated, len(got.Activity), len(tc.en.Activity))
			}
			ev, err := event.Decode([]byte(in[InNormalizedEvent]))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Transition.Comment.Truncated != tc.eventIsCut {
				t.Errorf("event comment truncated %v", ev.Transition.Comment.Truncated)
			}
			if len(r.Entity.Activity) != len(tc.en.Activity) || r.Entity.Activity[len(r.Entity.Activity)-1].Truncated {
				t.Errorf("the run's own entity was changed")
			}
		})
	}
}
