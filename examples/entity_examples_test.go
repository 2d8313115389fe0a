package examples

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

var day0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func exampleEntity(labels []string, activity ...entity.Element) *entity.Entity {
	en := &entity.Entity{Source: entity.Source{System: entity.SystemJira}, Kind: entity.KindWorkItem, ID: 10042, Key: "PROJ-7",
		URL: "https://acme.atlassian.net/browse/PROJ-7", Repo: "acme/platform",
		State: entity.State{Title: "t", Status: "To Do", StatusCategory: entity.StatusTodo, Labels: labels, Assignees: []string{},
			Author: "dev", Created: day0, Updated: day0}, Activity: activity}
	if en.Activity == nil {
		en.Activity = []entity.Element{}
	}
	en.Version = entity.ComputeVersion(en, nil)
	return en
}

func dev(kind, id string, at time.Time) entity.Element {
	el := entity.Element{Kind: kind, ID: id, Created: at, Actor: event.Actor{ID: "dev", Kind: event.ActorHuman, Role: event.RoleWrite}}
	return el
}

// The staleness example decides as its comment says: it fires on a
// needs-info item untouched for 7 days, once per episode (its success
// receipt covers the version until someone touches the item).
func TestEntityHarnessExamples(t *testing.T) {
	cfg, _, err := harness.LoadDir("scheduled/.fullsend", func(k string) string { return map[string]string{"JIRA_BASE_URL": "http://127.0.0.1:18080"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	hs, err := harness.LoadAll(cfg)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*harness.Harness{}
	for _, h := range hs {
		byName[h.Name] = h
	}
	stale := byName["stale"]
	if stale == nil || stale.Entity == nil || stale.Entity.Every != time.Hour {
		t.Fatalf("stale %+v", stale)
	}
	eval := func(h *harness.Harness, en *entity.Entity, now time.Time) bool {
		t.Helper()
		ok, err := h.Trigger.Eval(trigger.NewEntityInputAt(en, nil, now))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	info := exampleEntity([]string{"needs-info"}, dev(entity.ElementComment, "1", day0.Add(time.Hour)))
	week := 7 * 24 * time.Hour
	if eval(stale, info, day0.Add(week)) || !eval(stale, info, day0.Add(week+2*time.Hour)) {
		t.Error("the staleness ping fires once 7 days passed without activity, not before")
	}
	if eval(stale, exampleEntity(nil), day0.Add(30*24*time.Hour)) {
		t.Error("the staleness ping needs the needs-info label")
	}
	// Once per episode: the run's receipt covers the version; a person's
	// comment is a new version, and the item is fresh again.
	rs := receipts.Receipts{}
	rs.Succeeded("stale", info.Version, "gha-dispatch/1", day0.Add(week+2*time.Hour))
	pol := reconcile.Policy{Max: stale.Entity.RetryMax, Backoff: stale.Entity.RetryBackoff}
	if d := reconcile.Decide(reconcile.Input{Version: info.Version, Record: rs["stale"], Now: day0.Add(9 * 24 * time.Hour), Policy: pol}); d.State != reconcile.Handled {
		t.Errorf("pinged twice in one episode: %+v", d)
	}
	touched := exampleEntity([]string{"needs-info"}, dev(entity.ElementComment, "2", day0.Add(9*24*time.Hour)), dev(entity.ElementComment, "1", day0.Add(time.Hour)))
	if eval(stale, touched, day0.Add(10*24*time.Hour)) || !eval(stale, touched, day0.Add(17*24*time.Hour)) {
		t.Error("a touched item starts a new episode 7 days after the touch")
	}
}
