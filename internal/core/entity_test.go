package core

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// An entity-source harness is not given bare events: until the input
// drivers resolve entities it never runs from Decide, and it is no error.
// The event-only harnesses beside it decide as before.
func TestDecideSkipsEntitySourceHarnesses(t *testing.T) {
	tr, err := trigger.CompileEntity(`true`, trigger.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ent := &harness.Harness{Name: "reconcile", Role: "r", Trigger: tr, TriggerText: "true", Enabled: true,
		Entity: &harness.EntitySources{Sources: []string{event.SystemJira}, MinRole: event.RoleWrite}}
	cfg := config.Config{}
	triage := mustHarness(t, "triage", `event.transition.kind == "comment_added"`)
	e, logs := newEngine(t, &cfg, ent, triage)
	d := e.Decide(commentEvent("write", "human", "/fs-triage"))
	if d.Verdict != VerdictRun || len(d.Runs) != 1 || d.Runs[0].Harness != "triage" || len(d.Errors) != 0 {
		t.Fatalf("decision %+v", d)
	}
	e2, _ := newEngine(t, &cfg, ent)
	if d := e2.Decide(commentEvent("write", "human", "/fs-triage")); d.Verdict != VerdictNoMatch || len(d.Errors) != 0 {
		t.Fatalf("an entity harness alone: %+v", d)
	}
	if strings.Contains(logs.String(), "evaluation failed") {
		t.Errorf("the entity harness was evaluated on an event:\n%s", logs)
	}
}

func entityHarness(t *testing.T, name, expr string, min event.Role, sources ...string) *harness.Harness {
	t.Helper()
	tr, err := trigger.CompileEntity(expr, trigger.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) == 0 {
		sources = []string{event.SystemJira, event.SystemGitHub, event.SystemGitLab}
	}
	return &harness.Harness{Name: name, Role: name, Trigger: tr, TriggerText: expr, Enabled: true,
		Entity: &harness.EntitySources{Sources: sources, MinRole: min}}
}

// workItem is a Jira work item whose newest element is a /fs-triage
// comment by actor with role.
func workItem(actor string, role event.Role) *entity.Entity {
	at := time.Date(2026, 11, 3, 14, 0, 0, 0, time.UTC)
	return &entity.Entity{
		Source: entity.Source{System: entity.SystemJira}, Kind: entity.KindWorkItem, ID: 10042, Key: "PROJ-123",
		URL: "https://acme.atlassian.net/browse/PROJ-123", Repo: "acme/platform",
		State: entity.State{Labels: []string{}, Assignees: []string{}, Created: at, Updated: at},
		Activity: []entity.Element{
			entity.TextElement(entity.ElementComment, "20077", at, event.Actor{ID: actor, Kind: event.ActorHuman, Role: role}, "/fs-triage check it"),
			entity.TextElement(entity.ElementBody, "10042", at.Add(-time.Hour), event.Actor{ID: "reporter", Kind: event.ActorHuman, Role: event.RoleRead, IsEntityAuthor: true}, "It breaks."),
		},
	}
}

const triageCommand = `entity.activity.exists(a, a.kind == "comment" && a.command == "/fs-triage")`

func TestDecideEntityAuthorizesBeforeCEL(t *testing.T) {
	cfg := config.Config{Authorization: config.Authorization{MinRole: event.RoleWrite, BotAccounts: []string{"fullsend-bot"}, ScheduledDiscovery: config.ScheduledAllow}}
	triage := entityHarness(t, "triage", triageCommand, "")
	// A trigger that would match on any element of the actor: it must
	// never see the outsider's comment.
	sawOutsider := entityHarness(t, "saw", `entity.activity.exists(a, a.actor.id in ["outsider", "reader", "fullsend-bot"])`, "")
	// Even at min_role none, bots and the tool's own account never count.
	sawBots := entityHarness(t, "bots", `entity.activity.exists(a, a.actor.id in ["fullsend-bot", "dependabot"])`, event.RoleNone)
	e, _ := newEngine(t, &cfg, triage, sawOutsider, sawBots)
	tests := []struct {
		name    string
		en      *entity.Entity
		verdict string
		matched []string
	}{
		{"a developer's command", workItem("dev", event.RoleWrite), VerdictRun, []string{"triage"}},
		{"an outsider's command never reaches CEL", workItem("outsider", event.RoleNone), VerdictNoMatch, nil},
		{"a reader is below min_role", workItem("reader", event.RoleRead), VerdictNoMatch, nil},
		{"the tool's own account never counts", workItem("fullsend-bot", event.RoleAdmin), VerdictNoMatch, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := e.DecideEntity(Resolution{Entity: tc.en}, nil)
			var names []string
			for _, h := range d.Matched {
				names = append(names, h.Name)
			}
			if d.Verdict != tc.verdict || strings.Join(names, ",") != strings.Join(tc.matched, ",") {
				t.Fatalf("verdict %s (%s), matched %v; want %s %v", d.Verdict, d.Reason, names, tc.verdict, tc.matched)
			}
		})
	}
	bot := workItem("dependabot", event.RoleAdmin)
	bot.Activity[0].Actor.Kind = event.ActorBot
	if d := e.DecideEntity(Resolution{Entity: bot}, nil); d.Verdict != VerdictNoMatch || d.Dropped["bots"] != 1 {
		t.Errorf("a bot's element counted: %+v", d)
	}
}

// Roles are the actors' current ones: a user demoted between two
// evaluations no longer counts in the second.
func TestDecideEntityFiltersADemotedUser(t *testing.T) {
	cfg := config.Config{}
	e, _ := newEngine(t, &cfg, entityHarness(t, "triage", triageCommand, event.RoleWrite))
	ev := &event.Event{Repo: "acme/platform", Source: event.Source{System: event.SystemJira, RawType: "comment"},
		Actor: event.Actor{ID: "lead", Kind: event.ActorHuman, Role: event.RoleAdmin}}
	first := e.DecideEntity(Resolution{Entity: workItem("dev", event.RoleWrite)}, ev)
	second := e.DecideEntity(Resolution{Entity: workItem("dev", event.RoleRead)}, ev) // dev was demoted to read
	if first.Verdict != VerdictRun || second.Verdict != VerdictNoMatch || second.Dropped["triage"] != 2 {
		t.Fatalf("first %s, second %s (dropped %d)", first.Verdict, second.Verdict, second.Dropped["triage"])
	}
}

func TestDecideEntityDeniesFailedEnumeration(t *testing.T) {
	cfg := config.Config{Authorization: config.Authorization{ScheduledDiscovery: config.ScheduledAllow}}
	always := entityHarness(t, "always", `true`, "")
	e, logs := newEngine(t, &cfg, always)
	for name, res := range map[string]Resolution{
		"failed":      {Err: errors.New("GET /rest/api/3/issue/PROJ-123: HTTP 503")},
		"unavailable": {},
	} {
		d := e.DecideEntity(res, nil)
		if d.Verdict != VerdictDenied || len(d.Matched) != 0 || !strings.Contains(d.Reason, "entity could not be resolved") {
			t.Errorf("%s: %+v", name, d)
		}
	}
	if !strings.Contains(logs.String(), "HTTP 503") {
		t.Errorf("the reason is not logged:\n%s", logs)
	}
	incomplete := workItem("ghost", "")
	d := e.DecideEntity(Resolution{Entity: incomplete}, nil)
	if d.Verdict != VerdictDenied || len(d.Matched) != 0 || !strings.Contains(d.Denied["always"], "could not be enumerated") {
		t.Errorf("incomplete enumeration: %+v", d)
	}
	empty := workItem("dev", event.RoleWrite)
	empty.Activity = []entity.Element{}
	if d := e.DecideEntity(Resolution{Entity: empty}, nil); d.Verdict != VerdictRun {
		t.Errorf("a complete, empty enumeration may be evaluated: %+v", d)
	}
}

func TestDecideEntityGatesEventsAndSources(t *testing.T) {
	cfg := config.Config{}
	gl := entityHarness(t, "gitlab-only", `true`, "", event.SystemGitLab)
	anyEvent := entityHarness(t, "any", `event != null && event.actor.id == "dev"`, "")
	plain := mustHarness(t, "plain", `true`)
	e, _ := newEngine(t, &cfg, gl, anyEvent, plain)
	en := workItem("dev", event.RoleWrite)
	outsider := commentEvent("none", "human", "/fs-triage")
	if d := e.DecideEntity(Resolution{Entity: en}, outsider); d.Verdict != VerdictDenied || !strings.Contains(d.Reason, "below min_role") {
		t.Errorf("an outsider's event: %+v", d)
	}
	dev := commentEvent("write", "human", "/fs-triage")
	dev.Actor.ID = "dev"
	d := e.DecideEntity(Resolution{Entity: en}, dev)
	if d.Verdict != VerdictRun || len(d.Matched) != 1 || d.Matched[0].Name != "any" {
		t.Errorf("only the jira-source entity harness decides a jira entity: %+v", d)
	}
	cfg.KillSwitch = true
	if d := e.DecideEntity(Resolution{Entity: en}, dev); d.Verdict != VerdictKilled {
		t.Errorf("kill switch: %+v", d)
	}
}

// A scheduled evaluation (no event) is denied unless the platform policy
// allows it; an event-backed one is not affected by the policy.
func TestDecideEntityScheduledPolicy(t *testing.T) {
	for _, policy := range []string{"", config.ScheduledDeny, "Allow", config.ScheduledAllow} {
		t.Run("policy "+policy, func(t *testing.T) {
			cfg := config.Config{Authorization: config.Authorization{MinRole: event.RoleWrite, ScheduledDiscovery: policy}}
			e, _ := newEngine(t, &cfg, entityHarness(t, "labelled", `event == null && "needs-triage" in entity.state.labels`, ""),
				entityHarness(t, "any", `true`, ""))
			en := workItem("dev", event.RoleWrite)
			en.State.Labels = []string{"needs-triage"}
			d := e.DecideEntity(Resolution{Entity: en}, nil)
			if allowed := policy == config.ScheduledAllow; allowed != (d.Verdict == VerdictRun) || !allowed && !strings.Contains(d.Reason, "scheduled discovery is denied") {
				t.Errorf("scheduled: %+v", d)
			}
			ev := &event.Event{Repo: "acme/platform", Source: event.Source{System: event.SystemJira, RawType: "comment"},
				Actor: event.Actor{ID: "lead", Kind: event.ActorHuman, Role: event.RoleAdmin}}
			if d := e.DecideEntity(Resolution{Entity: en}, ev); d.Verdict != VerdictRun || len(d.Matched) != 1 || d.Matched[0].Name != "any" {
				t.Errorf("event-backed: %+v", d)
			}
		})
	}
}

// Each harness sees its own receipt as entity.receipt, and null without.
func TestDecideEntityReceiptPerHarness(t *testing.T) {
	cfg := config.Config{Authorization: config.Authorization{MinRole: event.RoleWrite, ScheduledDiscovery: config.ScheduledAllow}}
	due := `entity.receipt == null || entity.receipt.version != entity.version`
	e, _ := newEngine(t, &cfg, entityHarness(t, "a", due, ""), entityHarness(t, "b", due, ""),
		entityHarness(t, "c", `entity.receipt != null && entity.receipt.attempts == 2 && entity.receipt.outcome == "succeeded"`, ""))
	en := workItem("dev", event.RoleWrite)
	en.Version = "v1:abc"
	got := &entity.Receipt{Version: "v1:abc", At: en.State.Updated, Run: "gha-dispatch/1", Outcome: "succeeded", Attempts: 2}
	d := e.DecideEntity(Resolution{Entity: en, Receipts: map[string]*entity.Receipt{"a": got, "c": got}}, nil)
	var names []string
	for _, h := range d.Matched {
		names = append(names, h.Name)
	}
	if strings.Join(names, ",") != "b,c" || en.Receipt != nil {
		t.Errorf("matched %v (%s); the resolved entity must stay untouched: %+v", names, d.Reason, en.Receipt)
	}
}
