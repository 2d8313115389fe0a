package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// A follow-up steers only when its event would start a run of this
// harness on this scope, as on the dispatch path: a valid event, past
// the gate and the trigger; an event that is not a valid NormalizedEvent
// (the dispatch path rejects it) never steers.
func TestSteerDecider(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nagents:\n  - name: triage\n    source: triage.yaml\n",
		"triage.yaml": "role: triage\ntrigger: event.transition.kind == \"comment_added\" && event.transition.comment.command == \"/fs-triage\"\n" +
			"run:\n  command: [\"true\"]\nsteer: {enabled: true}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _, err := harness.LoadDir(dir, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	h, err := harness.Find(cfg, "triage")
	if err != nil {
		t.Fatal(err)
	}
	own := jiraEvent()
	var log syncio.Buffer
	e := steerEnv{r: Request{Getenv: func(string) string { return "" }}, cfg: cfg, h: h, ev: own,
		key: string(scope.KeyOf(h.Name, own, cfg.Forge)), log: testLogger(&log)}
	decide, err := e.decider("557058:fullsend-bot")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		edit  func(*event.Event)
		steer bool
	}{
		{"a developer's command", func(*event.Event) {}, true},
		{"below min_role", func(ev *event.Event) { ev.Actor.Role = event.RoleRead }, false},
		{"the tool's own account", func(ev *event.Event) { ev.Actor.ID = "557058:fullsend-bot" }, false},
		{"another command", func(ev *event.Event) { ev.Transition.Comment.Command = "/fs-code" }, false},
		{"another item", func(ev *event.Event) { ev.Entity.ID, ev.Entity.Key = 10043, "PROJ-124" }, false},
		{"not a valid event", func(ev *event.Event) { ev.Entity.URL = "" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := jiraEvent()
			tt.edit(ev)
			got, err := decide(context.Background(), ev)
			if err != nil || got != tt.steer {
				t.Fatalf("steers %v (%v), want %v\n%s", got, err, tt.steer, log.String())
			}
		})
	}
}
