package pollcycle_test

import (
	"context"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// overlayCases are the overlay outcomes both the event and the scheduled
// path must give: the role and workflow of the run, and the overlay
// errors counted.
var overlayCases = []struct {
	name, when     string
	role, workflow string
	errors         int
}{
	{"the jira overlay", `entity.source.system == "jira"`, "jira-triage", "fullsend-jira.yml", 0},
	{"no match", `entity.source.system == "github"`, "triage", "", 0},
	{"an evaluation error", `entity.state.labels[4] == "x"`, "triage", "", 1},
}

func compileEntity(t *testing.T, expr string) *trigger.Trigger {
	t.Helper()
	tr, err := trigger.CompileEntity(expr, trigger.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The poll cycle dispatches the runs its decisions planned with their
// harness's overlays: the overlay's role and workflow, or the harness's
// own settings when a `when` could not be evaluated, counted in the
// cycle's stats.
func TestPollAppliesOverlays(t *testing.T) {
	for _, tc := range overlayCases {
		t.Run(tc.name, func(t *testing.T) {
			compile := func(expr string) *trigger.Trigger { return compileEntity(t, expr) }
			h := &harness.Harness{Name: "triage", Role: "triage", Enabled: true,
				Trigger:  compile(`entity.activity.exists(a, a.kind == "comment" && a.command == "/fs-triage")`),
				Entity:   &harness.EntitySources{Sources: []string{entity.SystemJira}, MinRole: event.RoleWrite},
				Overlays: []harness.Overlay{{When: compile(tc.when), Role: "jira-triage", Workflow: "fullsend-jira.yml"}}}
			e, err := core.New(core.Options{Config: &config.Config{}, Harnesses: harness.NewRegistry(h)})
			if err != nil {
				t.Fatal(err)
			}
			it := item("P-1", "/fs-triage now")
			d := &entityDriver{fakeDriver: &fakeDriver{Items: []*poll.Item{it}}, resolve: func(it *poll.Item) entity.Resolution {
				return entity.Resolution{Entity: jiraEntity(it.ID, "someone", event.RoleWrite, "/fs-triage now")}
			}}
			out := &fakeOut{}
			res, err := pollcycle.Run(context.Background(), opts(d, poll.CoreDecider(e), out))
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Runs) != 1 || out.Runs[0].Role != tc.role || out.Runs[0].Workflow != tc.workflow {
				t.Fatalf("runs %+v", out.Runs)
			}
			if n := res.Stats.OverlayErrors["triage"]; n != tc.errors {
				t.Errorf("overlay errors %v, want %d", res.Stats.OverlayErrors, tc.errors)
			}
		})
	}
}

// TestScheduledAppliesOverlays: a scheduled match (no event) gets its
// harness's overlays, evaluated on the entity its trigger saw; an
// evaluation error leaves the harness's own settings and is reported.
func TestScheduledAppliesOverlays(t *testing.T) {
	for _, tc := range overlayCases {
		t.Run(tc.name, func(t *testing.T) {
			compile := func(expr string) *trigger.Trigger { return compileEntity(t, expr) }
			h := &harness.Harness{Name: "triage", Role: "triage", Enabled: true,
				Trigger:  compile(`event == null && entity.activity.exists(a, a.kind == "comment")`),
				Entity:   &harness.EntitySources{Sources: []string{entity.SystemJira}, MinRole: event.RoleWrite},
				Overlays: []harness.Overlay{{When: compile(tc.when), Role: "jira-triage", Workflow: "fullsend-jira.yml"}}}
			cfg := &config.Config{}
			cfg.Authorization.ScheduledDiscovery = config.ScheduledAllow
			e, err := core.New(core.Options{Config: cfg, Harnesses: harness.NewRegistry(h)})
			if err != nil {
				t.Fatal(err)
			}
			sd, ok := poll.CoreDecider(e).(poll.ScheduledDecider)
			if !ok {
				t.Fatal("the core decider does not decide scheduled evaluations")
			}
			dec := sd.DecideScheduled(entity.Resolution{Entity: jiraEntity("P-1", "someone", event.RoleWrite, "please look")})
			if len(dec.Matched) != 1 || dec.Matched[0].Role != tc.role || dec.Matched[0].Workflow != tc.workflow {
				t.Fatalf("matched %+v (%s)", dec.Matched, dec.Reason)
			}
			if len(dec.OverlayErrors) != tc.errors {
				t.Errorf("overlay errors %v, want %d", dec.OverlayErrors, tc.errors)
			}
		})
	}
}
