package trigger

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"cel.dev/cel-go/cel"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// nestedAll is the expression that matched 5 times in 5 at one load and
// once in 5 at another when a wall-clock deadline bounded evaluation.
const nestedAll = `event.state.labels.all(a, event.state.labels.all(b, a + b != "x"))`

// eventWithLabels is a valid comment event with n labels of size
// characters each (n and size within the schema), or beyond it.
func eventWithLabels(n, size int) *event.Event {
	ev := commentEvent()
	ev.State.Labels = make([]string, n)
	for i := range ev.State.Labels {
		ev.State.Labels[i] = fmt.Sprintf("%05d", i) + strings.Repeat("x", size-5)
	}
	return ev
}

// bigEvent is a valid event carrying the most labels an event may carry,
// each as long as a label may be.
func bigEvent(t *testing.T) *event.Event {
	t.Helper()
	sizes, err := schemaSizes()
	if err != nil {
		t.Fatal(err)
	}
	ev := eventWithLabels(int(sizes["event.state.labels"]), int(sizes["event.state.labels.@items"]))
	if err := ev.Validate(); err != nil {
		t.Fatalf("test event is invalid: %v", err)
	}
	return ev
}

// The sizes the estimate assumes are the schema's.
func TestSchemaSizes(t *testing.T) {
	sizes, err := schemaSizes()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]uint64{
		"event.state.labels":                      1000,
		"event.state.labels.@items":               255,
		"event.transition.comment.body":           4096,
		"event.transition.comment.command":        64,
		"event.entity.url":                        2048,
		"event.repo":                              512,
		"event.actor.role":                        uint64(len("external")),
		"event.state.change_proposal.head_ref":    1024,
		"event.state.conversation.category.name":  255,
		"event.transition.review.reviewer_id":     256,
		"event.entity.linked_change_proposal.url": 2048,
	} {
		if got, ok := sizes[path]; !ok || got != want {
			t.Errorf("size of %s = %d (%v), want %d", path, got, ok, want)
		}
	}
}

// Compile rejects an expression whose worst case over every valid event
// exceeds limits.trigger_cost, naming the estimate; raising the limit
// accepts it.
func TestTooExpensiveRejectedAtCompile(t *testing.T) {
	cases := []struct {
		expr, want string
	}{
		{nestedAll, "trigger is too expensive: its worst-case cost is estimated at "},
		{`event.state.labels.map(a, event.state.labels.map(b, a+b+a+b)).size() > 0`, "over limits.trigger_cost (1000000)"},
	}
	for _, tc := range cases {
		_, err := Compile(tc.expr)
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, tc.want) ||
			!strings.Contains(ce.Msg, "up to 1000 labels of 255 characters") {
			t.Errorf("Compile(%q) = %v; want a *CompileError containing %q", tc.expr, err, tc.want)
			continue
		}
		if _, err := CompileWith(tc.expr, Limits{Cost: 1 << 40}); err != nil {
			t.Errorf("CompileWith(%q, a large cost) = %v; want it accepted", tc.expr, err)
		}
	}
}

// A trigger that compiles never reaches its limit on a valid event: the
// decision is the same on every machine. The nested comprehension on 200
// labels, admitted by a limit that covers its worst case, always answers.
func TestSameDecisionWhateverTheMachine(t *testing.T) {
	tr, err := CompileWith(nestedAll, Limits{Cost: 100_000_000})
	if err != nil {
		t.Fatal(err)
	}
	in := NewInput(eventWithLabels(200, 10))
	for i := range 5 {
		if ok, err := tr.Eval(in); !ok || err != nil {
			t.Fatalf("evaluation %d = %v, %v; want true", i, ok, err)
		}
	}
}

// The estimate is an upper bound of the real cost on the largest valid
// event: for each expression, the cost cel-go counts while evaluating it
// (interpreter.ActualCost) is at most Trigger.WorstCost.
func TestEstimateBoundsActualCost(t *testing.T) {
	exprs := []string{
		`"0999" in event.state.labels`,
		`event.state.labels.exists(l, l.startsWith("zz"))`,
		`event.state.labels.all(l, l.matches("^[0-9]+x+$"))`,
		`event.state.labels.filter(l, l.contains("9x")).size() > 0`,
		`event.state.labels.map(l, l + event.transition.comment.body).size() > 1`,
		`event.transition.comment.body.split(" ").size() > 0 && event.transition.comment.body.lowerAscii().contains("y")`,
		`event.state.labels.exists(a, ["x", "y", event.repo].exists(b, a == b + "!"))`,
	}
	ev := bigEvent(t)
	ev.Transition.Comment.Body = strings.Repeat("word ", 819)
	in := NewInput(ev)
	env, err := Env()
	if err != nil {
		t.Fatal(err)
	}
	for _, expr := range exprs {
		tr, err := CompileWith(expr, Limits{Cost: 1 << 40})
		if err != nil {
			t.Fatalf("CompileWith(%q): %v", expr, err)
		}
		ast, _ := env.Compile(expr)
		prg, err := env.Program(ast, cel.CostTracking(nil))
		if err != nil {
			t.Fatal(err)
		}
		_, det, err := prg.Eval(in.act)
		if err != nil {
			t.Fatalf("Eval(%q): %v", expr, err)
		}
		if got := det.ActualCost(); got == nil || *got > tr.WorstCost() {
			t.Errorf("%q: actual cost %v above the estimate %d", expr, got, tr.WorstCost())
		}
	}
}

// Where the estimate is exceeded (only an event larger than the schema
// allows can do it), evaluation stops with a *LimitError: an error, which
// callers never count as a match or as no match.
func TestOverLimitIsAnError(t *testing.T) {
	expr := `event.state.labels.exists(l, l == "absent")`
	probe, err := CompileWith(expr, Limits{Cost: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	lim := Limits{Cost: probe.WorstCost()} // exactly the worst case of a valid event
	tr, err := CompileWith(expr, lim)
	if err != nil {
		t.Fatalf("CompileWith(the estimate) = %v; want it accepted", err)
	}
	if ok, err := tr.Eval(NewInput(bigEvent(t))); ok || err != nil {
		t.Fatalf("on the largest valid event: %v, %v; want false, nil", ok, err)
	}
	oversized := eventWithLabels(3000, 20)
	ok, err := tr.Eval(NewInput(oversized))
	var le *LimitError
	if ok || !errors.As(err, &le) || le.Limit != LimitCost {
		t.Fatalf("on 3000 labels: %v, %v; want false and a *LimitError", ok, err)
	}
	want := fmt.Sprintf("trigger: evaluation stopped: runtime cost limit of %d exceeded (limits.trigger_cost)", lim.Cost)
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// The default cost limit leaves ordinary triggers alone, even on the
// largest event.
func TestLimitsSpareOrdinaryTriggers(t *testing.T) {
	in := NewInput(bigEvent(t))
	for _, expr := range []string{
		`"00999` + strings.Repeat("x", 250) + `" in event.state.labels`,
		`event.state.labels.exists(l, l.matches("^00999x+$"))`,
		`event.state.labels.filter(l, l.startsWith("009")).size() == 100`,
	} {
		tr, err := Compile(expr)
		if err != nil {
			t.Fatalf("Compile(%q): %v", expr, err)
		}
		if ok, err := tr.Eval(in); !ok || err != nil {
			t.Errorf("Eval(%q) = %v, %v; want true", expr, ok, err)
		}
	}
}

// The default documented for limits.trigger_cost is the one Compile
// applies.
func TestDefaultsMatchConfig(t *testing.T) {
	if d := config.Default().Limits; uint64(d.TriggerCost) != DefaultCost {
		t.Errorf("config default %d; trigger default %d", d.TriggerCost, DefaultCost)
	}
}
