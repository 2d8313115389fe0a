package core

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

func mustHarness(t testing.TB, name, expr string) *harness.Harness {
	t.Helper()
	tr, err := trigger.Compile(expr)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return &harness.Harness{Name: name, Role: name, Trigger: tr, TriggerText: expr, Enabled: true}
}

func commentEvent(role, actorKind, command string) *event.Event {
	return &event.Event{
		Repo:       "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-123", URL: "https://acme.atlassian.net/browse/PROJ-123"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: command + " please", Command: command, Instruction: "please"}},
		Actor:      event.Actor{ID: "557058:abc", Kind: actorKind, Role: event.Role(role)},
		State:      event.State{Labels: []string{"bug"}},
		Source:     event.Source{System: event.SystemJira, RawType: "comment", RawAction: "created"},
	}
}

func labelEvent() *event.Event {
	ev := commentEvent("write", "human", "")
	ev.Transition = event.Transition{Kind: event.LabelChanged, Label: &event.Label{Name: "needs-triage", Action: "added"}}
	return ev
}

func newEngine(t testing.TB, cfg *config.Config, hs ...*harness.Harness) (*Engine, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	e, err := New(Options{Config: cfg, Harnesses: harness.NewRegistry(hs...), Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return e, &logs
}

func TestDecide(t *testing.T) {
	triage := `event.transition.kind == "comment_added" && event.transition.comment.command == "/fs-triage"`
	label := `event.transition.kind == "label_changed" && event.transition.label.name == "needs-triage" && event.transition.label.action == "added"`
	broken := `event.state.labels[5] == "x"` // index out of range: an evaluation error
	cases := []struct {
		name    string
		cfg     config.Config
		ev      *event.Event
		verdict string
		runs    []string
		reason  string
	}{
		{"developer triage", config.Config{}, commentEvent("write", "human", "/fs-triage"), VerdictRun, []string{"triage"}, "matched triage"},
		{"outsider denied before CEL", config.Config{}, commentEvent("external", "human", "/fs-triage"), VerdictDenied, nil, "below min_role write"},
		{"bot comment denied", config.Config{}, commentEvent("admin", "bot", "/fs-triage"), VerdictDenied, nil, "bot actor"},
		{"configured bot account", config.Config{Authorization: config.Authorization{BotAccounts: []string{"557058:abc"}}}, commentEvent("admin", "human", "/fs-triage"), VerdictDenied, nil, "loop guard"},
		{"kill switch", config.Config{KillSwitch: true}, commentEvent("admin", "human", "/fs-triage"), VerdictKilled, nil, "kill_switch"},
		{"other command no match", config.Config{}, commentEvent("write", "human", "/fs-code"), VerdictNoMatch, nil, "no trigger matched"},
		{"label", config.Config{}, labelEvent(), VerdictRun, []string{"label"}, "matched label"},
		{"min_role read lets reader in", config.Config{Authorization: config.Authorization{MinRole: "read"}}, commentEvent("read", "human", "/fs-triage"), VerdictRun, []string{"triage"}, "role read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			e, logs := newEngine(t, &cfg, mustHarness(t, "triage", triage), mustHarness(t, "label", label),
				mustHarness(t, "broken", broken), &harness.Harness{Name: "manual", Role: "m"})
			d := e.Decide(c.ev)
			var got []string
			for _, r := range d.Runs {
				got = append(got, r.Harness)
				if r.Key != "triage:acme/platform:jira:work_item:10042" && r.Key != "label:acme/platform:jira:work_item:10042" {
					t.Errorf("key = %s", r.Key)
				}
				if r.WorkItem.Key != "PROJ-123" || r.WorkItem.Source != "jira" || r.Role != r.Harness {
					t.Errorf("run = %+v", r)
				}
			}
			if d.Verdict != c.verdict || fmt.Sprint(got) != fmt.Sprint(c.runs) || !strings.Contains(d.Reason, c.reason) {
				t.Fatalf("Decide = %s %v %q; want %s %v %q", d.Verdict, got, d.Reason, c.verdict, c.runs, c.reason)
			}
			if c.ev.Transition.Kind == event.LabelChanged && !strings.Contains(logs.String(), "harness=broken") {
				t.Errorf("evaluation error not logged with the harness name: %s", logs.String())
			}
		})
	}
}

func TestAdmitAppliesBreakerPerScope(t *testing.T) {
	cfg := &config.Config{}
	var logs bytes.Buffer
	e, err := New(Options{Config: cfg, Log: slog.New(slog.NewTextHandler(&logs, nil)), Breaker: NewBreaker(2),
		Harnesses: harness.NewRegistry(mustHarness(t, "triage", `event.transition.kind == "comment_added"`))})
	if err != nil {
		t.Fatal(err)
	}
	ev := commentEvent("write", "human", "/fs-triage")
	other := commentEvent("write", "human", "/fs-triage")
	other.Entity.ID, other.Entity.Key = 10043, "PROJ-124"
	admittedTotal := 0
	for i := 0; i < 4; i++ {
		a, s := e.Admit(e.Decide(ev).Runs)
		admittedTotal += len(a)
		if i >= 2 && len(s) != 1 {
			t.Fatalf("round %d: skipped %d", i, len(s))
		}
	}
	if admittedTotal != 2 {
		t.Fatalf("admitted %d, want 2", admittedTotal)
	}
	if a, _ := e.Admit(e.Decide(other).Runs); len(a) != 1 {
		t.Fatal("other scope limited")
	}
	if !strings.Contains(logs.String(), "circuit breaker") {
		t.Fatalf("skip not logged: %s", logs.String())
	}
}

func TestNewRejectsBadPolicy(t *testing.T) {
	if _, err := New(Options{Config: &config.Config{Authorization: config.Authorization{MinRole: "owner"}}}); err == nil {
		t.Fatal("bad min_role accepted")
	}
}

// BenchmarkDecide: one event through authorize + 50 harness triggers.
func BenchmarkDecide(b *testing.B) {
	var hs []*harness.Harness
	for i := 0; i < 50; i++ {
		var expr string
		switch i % 5 {
		case 0:
			expr = fmt.Sprintf(`event.transition.kind == "comment_added" && event.transition.comment.command == "/fs-cmd%d"`, i)
		case 1:
			expr = fmt.Sprintf(`event.transition.kind == "label_changed" && event.transition.label.name == "label-%d"`, i)
		case 2:
			expr = fmt.Sprintf(`"area-%d" in event.state.labels && event.actor.role in ["admin", "write"]`, i)
		case 3:
			expr = fmt.Sprintf(`event.source.system == "github" && event.entity.id == %d`, i)
		default:
			expr = fmt.Sprintf(`has(event.transition.comment) && event.transition.comment.body.startsWith("/fs-x%d")`, i)
		}
		hs = append(hs, mustHarness(b, fmt.Sprintf("h%d", i), expr))
	}
	hs = append(hs, mustHarness(b, "triage", `event.transition.kind == "comment_added" && event.transition.comment.command == "/fs-triage"`))
	e, _ := newEngine(b, &config.Config{}, hs...)
	ev := commentEvent("write", "human", "/fs-triage")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := e.Decide(ev)
		if len(d.Runs) != 1 {
			b.Fatalf("runs = %d", len(d.Runs))
		}
	}
}
