package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// The run's settings: the overlays evaluated on what the run was handed;
// the harness's own when an entity-source run has no entity or a `when`
// fails, said in the log.
func TestRunSettings(t *testing.T) {
	compile := func(f func(string, trigger.Limits) (*trigger.Trigger, error), expr string) *trigger.Trigger {
		tr, err := f(expr, trigger.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	en, err := entity.Decode(jiraEntityJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	base := harness.Harness{Name: "triage", Timeout: 30 * time.Minute, Env: []string{"A"}}
	evOnly := base
	evOnly.Overlays = []harness.Overlay{{When: compile(trigger.CompileWith, `event.source.system == "jira"`), Timeout: time.Minute, Env: []string{"B"}}}
	broken := base
	broken.Overlays = []harness.Overlay{{When: compile(trigger.CompileWith, `event.state.labels[7] == "x"`), Timeout: time.Minute}}
	ent := base
	ent.Entity = &harness.EntitySources{Sources: []string{"jira"}}
	ent.Overlays = []harness.Overlay{{When: compile(trigger.CompileEntity, `entity.source.system == "jira"`), Timeout: time.Hour}}
	tests := []struct {
		name    string
		h       *harness.Harness
		en      *entity.Entity
		timeout time.Duration
		env     string
		log     string
	}{
		{"no overlays", &base, nil, 30 * time.Minute, "A", ""},
		{"event-only overlay", &evOnly, nil, time.Minute, "B", "overlays applied"},
		{"evaluation error", &broken, nil, 30 * time.Minute, "A", "level=ERROR"},
		{"entity overlay", &ent, en, time.Hour, "A", "overlays applied"},
		{"entity-source run without entity", &ent, nil, 30 * time.Minute, "A", "no entity was given"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log syncio.Buffer
			s := runSettings(tc.h, jiraEvent(), tc.en, testLogger(&log))
			if s.Timeout != tc.timeout || strings.Join(s.Env, ",") != tc.env {
				t.Errorf("settings %+v", s)
			}
			if !strings.Contains(log.String(), tc.log) {
				t.Errorf("log lacks %q:\n%s", tc.log, log.String())
			}
		})
	}
}
