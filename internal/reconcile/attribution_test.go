package reconcile

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

func jiraEntity(n int) *entity.Entity {
	en := &entity.Entity{Source: entity.Source{System: entity.SystemJira}, Kind: entity.KindWorkItem, ID: 10042, Key: "PROJ-7",
		URL: "https://acme.atlassian.net/browse/PROJ-7", Repo: "acme/platform",
		State: entity.State{Title: "t", Status: "To Do", StatusCategory: entity.StatusTodo, Labels: []string{"needs-triage"},
			Assignees: []string{}, Author: "u1", Created: t0, Updated: t0}, Activity: []entity.Element{}}
	for i := range n {
		en.Activity = append(en.Activity, entity.TextElement(entity.ElementComment, string(rune('a'+i%26)), t0.Add(-time.Duration(i)*time.Minute),
			event.Actor{ID: "dev", Kind: event.ActorHuman, Role: event.RoleWrite}, "hello"))
	}
	en.Version = entity.ComputeVersion(en, nil)
	return en
}

func TestAttribute(t *testing.T) {
	en := jiraEntity(2)
	a := Attribute(Scheduled{Invoker: "jira-poll:p1", Policy: plan.AttributionPolicy{ScheduledDiscovery: "allow", MinRole: "write"},
		Harness: "triage", Revision: "sha256:ab", Attempt: 2, Kept: en})
	if a.Entity != "jira:acme/platform:work_item:10042" || a.Key != "PROJ-7" || a.Version != en.Version || a.Attempt != 2 ||
		len(a.Elements) != 2 || a.Elements[0] != (plan.AttributedElement{Kind: "comment", ID: "a", Actor: "dev", Role: "write"}) || a.ElementsTruncated {
		t.Errorf("got %+v", a)
	}
	big := Attribute(Scheduled{Invoker: "x", Kept: jiraEntity(entity.MaxActivity)})
	if len(big.Elements) != plan.MaxAttributedElements || !big.ElementsTruncated {
		t.Errorf("%d elements, truncated %v", len(big.Elements), big.ElementsTruncated)
	}
	b, _ := json.Marshal(big)
	if len(b) > 4096 {
		t.Errorf("an attribution of %d bytes takes too much of the inputs' limit", len(b))
	}
}

// A scheduled run's event is valid, and yields the entity's scope: the
// same as an event-backed run's on the same Jira issue.
func TestEventSharesTheScope(t *testing.T) {
	en := jiraEntity(1)
	ev := Event(en, "jira-poll:p1")
	if err := ev.Validate(); err != nil {
		t.Fatal(err)
	}
	jiraEv := *ev
	jiraEv.Source = event.Source{System: event.SystemJira, RawType: "comment"}
	if scope.KeyOf("triage", ev, "github") != scope.KeyOf("triage", &jiraEv, "github") ||
		string(scope.KeyOf("triage", ev, "github")) != "triage:acme/platform:jira:work_item:10042" {
		t.Errorf("scopes %s and %s", scope.KeyOf("triage", ev, "github"), scope.KeyOf("triage", &jiraEv, "github"))
	}
	if k := IdempotencyKey("triage:acme/platform:jira:work_item:10042", en.Version); !strings.HasSuffix(k, "@"+en.Version) {
		t.Errorf("key %s", k)
	}
}
