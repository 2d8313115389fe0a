package trigger

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
)

func TestEvalBehaviour(t *testing.T) {
	cases := []struct {
		name string
		expr string
		ev   *event.Event
		want bool
	}{
		{"command matches", `event.transition.kind == "comment_added" && event.transition.comment.command == "/fs-triage"`, commentEvent(), true},
		{"command prefix", `event.transition.comment.command.startsWith("/fs-")`, commentEvent(), true},
		{"command on label event is empty", `event.transition.comment.command.startsWith("/fs-")`, labelEvent(), false},
		{"has absent comment", `has(event.transition.comment)`, labelEvent(), false},
		{"has present comment", `has(event.transition.comment)`, commentEvent(), true},
		{"direct access through absent object is zero", `event.transition.comment.body == ""`, labelEvent(), true},
		{"has guard then access", `has(event.transition.comment) && event.transition.comment.instruction.contains("criteria")`, commentEvent(), true},
		{"label in list", `"bug" in event.state.labels`, commentEvent(), true},
		{"label not in list", `"bug" in event.state.labels`, labelEvent(), false},
		{"label added", `event.transition.kind == "label_changed" && event.transition.label.name == "needs-triage" && event.transition.label.action == "added"`, labelEvent(), true},
		{"entity id is int", `event.entity.id == 10042`, commentEvent(), true},
		{"entity id arithmetic", `event.entity.id % 2 == 1`, labelEvent(), true},
		{"json names", `event.source.raw_type == "comment" && event.source.raw_action == "created" && !event.actor.is_entity_author`, commentEvent(), true},
		{"jira key", `event.entity.key.matches("^PROJ-[0-9]+$")`, commentEvent(), true},
		{"actor role is a string", `event.actor.role == "write" && event.actor.role in ["admin", "write"]`, commentEvent(), true},
		{"actor role other value", `event.actor.role.startsWith("ad")`, commentEvent(), false},
		{"pr fork", `event.entity.kind == "change_proposal" && event.state.change_proposal.is_fork`, prEvent(), true},
		{"absent change proposal", `has(event.state.change_proposal)`, commentEvent(), false},
		{"optional chaining", `event.transition.?comment.command.orValue("none") == "none"`, labelEvent(), true},
		{"string extension", `event.transition.comment.body.lowerAscii().contains("acceptance")`, commentEvent(), true},
		{"empty labels size", `size(event.state.labels) == 0`, prEvent(), true},
		{"has on zero scalar", `has(event.transition.comment.id)`, commentEvent(), false},
		{"has on set scalar", `has(event.transition.comment.command)`, commentEvent(), true},
		{"kind in list", `event.transition.kind in ["opened", "synchronized"]`, prEvent(), true},
		{"labels exists", `event.state.labels.exists(l, l.startsWith("needs-"))`, commentEvent(), true},
		{"absent linked change proposal", `has(event.entity.linked_change_proposal)`, commentEvent(), false},
		{"absent conversation bool", `event.state.conversation.category.is_answerable`, commentEvent(), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Compile(tc.expr)
			if err != nil {
				t.Fatalf("Compile(%q): %v", tc.expr, err)
			}
			got, err := tr.Eval(NewInput(tc.ev))
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if got != tc.want {
				t.Errorf("Eval(%q) = %v, want %v", tc.expr, got, tc.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name      string
		expr      string
		line, col int
		msg       string
	}{
		{"unknown field", `event.entity.idd == 7`, 1, 14, "event.entity has no field 'idd'"},
		{"unknown top field", "event.transition.kind == \"x\" &&\n  event.acter.role == \"write\"", 2, 9, "event has no field 'acter'"},
		{"unknown variable", `evnt.repo == "a/b"`, 1, 1, "unknown name 'evnt'"},
		{"type mismatch", `event.entity.id == "7"`, 1, 17, "'==' cannot be applied to int and string"},
		{"not bool: int", `event.entity.id`, 1, 1, "has type int"},
		{"not bool: string", `event.repo`, 1, 1, "has type string"},
		{"not bool: list", `event.state.labels`, 1, 1, "has type list(string)"},
		{"syntax", `event.repo ==`, 1, 12, "the expression ends with '=='"},
		{"too expensive", `event.state.labels.all(a, event.state.labels.all(b, event.state.labels.all(c, event.state.labels.all(d, a + b + c + d != ""))))`, 1, 1, "too expensive"},
		// A valid event may carry 1000 labels; three nested comprehensions
		// over them are a billion steps (minutes of CPU per event).
		{"triple comprehension over labels", `event.state.labels.all(a, event.state.labels.all(b, event.state.labels.all(c, a + b + c != "")))`, 1, 1, "too expensive"},
		// contains() over two 255-character labels is costed at their product:
		// 685 M for 1000 x 1000 pairs, about ten seconds of CPU.
		{"double comprehension with contains", `event.state.labels.exists(a, event.state.labels.exists(b, a != b && a.contains(b)))`, 1, 1, "estimated at 685008004"},
		// Even a cheap double comprehension over the labels is a million
		// steps on the largest valid event.
		{"double comprehension", `event.state.labels.exists(a, event.state.labels.exists(b, a != b && a.startsWith(b)))`, 1, 1, "estimated at 60008004"},
		{"multi-line syntax", "event.repo == \"a\" &&\n\n   (", 3, 4, "this '(' is never closed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Compile(tc.expr)
			if tr != nil || err == nil {
				t.Fatalf("Compile(%q) = %v, %v; want error", tc.expr, tr, err)
			}
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not *CompileError", err, err)
			}
			if ce.Line != tc.line || ce.Col != tc.col || !strings.Contains(ce.Msg, tc.msg) {
				t.Errorf("got %d:%d %q, want %d:%d containing %q", ce.Line, ce.Col, ce.Msg, tc.line, tc.col, tc.msg)
			}
		})
	}
}

func TestCompileErrorCollectsAll(t *testing.T) {
	_, err := Compile("event.a == 1 &&\nevent.b == 2")
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("want *CompileError, got %v", err)
	}
	all := ce.All()
	if len(all) != 2 || all[0].Line != 1 || all[1].Line != 2 {
		t.Fatalf("All() = %+v, want problems on lines 1 and 2", all)
	}
	want := "1:7: event has no field 'a'; its fields are actor, entity, repo, source, state, transition\n" +
		"  | event.a == 1 &&\n" +
		"  |       ^\n" +
		"2:7: event has no field 'b'; its fields are actor, entity, repo, source, state, transition\n" +
		"  | event.b == 2\n" +
		"  |       ^"
	if got := ce.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
}

func TestEmptyIsManual(t *testing.T) {
	for _, expr := range []string{"", "  \n\t"} {
		tr, err := Compile(expr)
		if tr != nil || err != nil {
			t.Errorf("Compile(%q) = %v, %v; want nil, nil", expr, tr, err)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	tr, err := Compile(`1 / (event.entity.id - 7) == 0`)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := tr.Eval(NewInput(labelEvent())); ok || err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("Eval = %v, %v; want false and a division error", ok, err)
	}
	idx, err := Compile(`event.state.labels[0] == "bug"`)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := idx.Eval(NewInput(prEvent())); ok || err == nil || !strings.Contains(err.Error(), "index out of bounds") {
		t.Errorf("Eval(labels[0] on no labels) = %v, %v; want false and an index error", ok, err)
	}
	if ok, err := tr.Eval(NewInput(nil)); ok || !errors.Is(err, errNoEvent) {
		t.Errorf("Eval(nil event) = %v, %v; want errNoEvent", ok, err)
	}
	if ok, err := tr.Eval(nil); ok || !errors.Is(err, errNoEvent) {
		t.Errorf("Eval(nil) = %v, %v; want errNoEvent", ok, err)
	}
	if tr.String() != `1 / (event.entity.id - 7) == 0` {
		t.Errorf("String() = %q", tr.String())
	}
}

// TestConcurrentEval shares one Trigger and one Input between goroutines;
// run with -race.
func TestConcurrentEval(t *testing.T) {
	tr, err := Compile(`"bug" in event.state.labels && event.transition.comment.command == "/fs-triage"`)
	if err != nil {
		t.Fatal(err)
	}
	in := NewInput(commentEvent())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				ok, err := tr.Eval(in)
				if err != nil || !ok {
					errs <- errors.Join(err, errors.New("unexpected false"))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// The cost estimate assumes exactly as many labels as a valid event may
// carry: the schema's maxItems.
func TestCostAssumesTheEventLabelCap(t *testing.T) {
	sizes, err := schemaSizes()
	if err != nil {
		t.Fatal(err)
	}
	n := int(sizes["event.state.labels"])
	ev := commentEvent()
	ev.State.Labels = make([]string, n)
	for i := range ev.State.Labels {
		ev.State.Labels[i] = "l" + strings.Repeat("x", i%200)
	}
	if err := ev.Validate(); err != nil {
		t.Fatalf("an event with %d labels is invalid: %v", n, err)
	}
	ev.State.Labels = append(ev.State.Labels, "one-more")
	if err := ev.Validate(); err == nil {
		t.Fatalf("an event with %d labels is valid, but triggers are costed for %d", len(ev.State.Labels), n)
	}
}
