package trigger

import (
	"fmt"
	"testing"
)

// benchTriggers returns n realistic triggers: comment commands, label
// checks, PR conditions and has() guards, cycling through a few shapes.
func benchTriggers(tb testing.TB, n int) []*Trigger {
	tb.Helper()
	shapes := []string{
		`event.transition.kind == "comment_added" && event.transition.comment.command == "/fs-cmd%d"`,
		`event.transition.kind == "label_changed" && event.transition.label.action == "added" && event.transition.label.name == "label-%d"`,
		`"label-%d" in event.state.labels`,
		`event.entity.kind == "change_proposal" && event.transition.kind == "opened" && event.entity.id > %d`,
		`has(event.transition.comment) && event.transition.comment.command.startsWith("/fs-%d")`,
	}
	out := make([]*Trigger, 0, n)
	for i := range n {
		tr, err := Compile(fmt.Sprintf(shapes[i%len(shapes)], i))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, tr)
	}
	return out
}

// BenchmarkEval50 evaluates 50 triggers against one event; one op is the
// whole set, including the per-event NewInput.
func BenchmarkEval50(b *testing.B) {
	trs := benchTriggers(b, 50)
	ev := commentEvent()
	b.ReportAllocs()
	for b.Loop() {
		in := NewInput(ev)
		for _, tr := range trs {
			if _, err := tr.Eval(in); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func TestBenchTriggersEvaluate(t *testing.T) {
	in := NewInput(commentEvent())
	matched := 0
	for _, tr := range benchTriggers(t, 50) {
		ok, err := tr.Eval(in)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			matched++
		}
	}
	// Only shape 4 with "/fs-4..." prefixes could match "/fs-triage": none do.
	if matched != 0 {
		t.Errorf("matched %d of 50, want 0", matched)
	}
}

// BenchmarkEvalComprehension evaluates one typical comprehension trigger,
// cheap enough to run without the deadline (6 004 units at worst).
func BenchmarkEvalComprehension(b *testing.B) {
	benchOne(b, `event.state.labels.exists(l, l.startsWith("area/"))`)
}

// BenchmarkEvalDeadline evaluates a comprehension trigger whose worst case
// (76 004 units) arms the deadline: the price of a context and a timer.
func BenchmarkEvalDeadline(b *testing.B) {
	benchOne(b, `event.state.labels.exists(l, l.matches("^area/.*$"))`)
}

func benchOne(b *testing.B, expr string) {
	tr, err := Compile(expr)
	if err != nil {
		b.Fatal(err)
	}
	in := NewInput(commentEvent())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tr.Eval(in); err != nil {
			b.Fatal(err)
		}
	}
}
