package trigger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// bigEvent is a valid event carrying the most labels an event may carry,
// each 255 characters long.
func bigEvent(t *testing.T) *event.Event {
	t.Helper()
	ev := commentEvent()
	ev.State.Labels = make([]string, assumedMaxListLen)
	for i := range ev.State.Labels {
		ev.State.Labels[i] = fmt.Sprintf("%04d", i) + strings.Repeat("x", 251)
	}
	if err := ev.Validate(); err != nil {
		t.Fatalf("test event is invalid: %v", err)
	}
	return ev
}

// The expression from the report: 919 M estimated, 27 s and 3.3 GB per
// event when it was accepted. It must not compile, and the message must
// show the estimate.
func TestRunawayRejectedAtCompile(t *testing.T) {
	expr := `event.state.labels.map(a, event.state.labels.map(b, a+b+a+b+a+b+a+b)).size() > 0`
	_, err := Compile(expr)
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("Compile = %v; want a *CompileError", err)
	}
	want := "trigger is too expensive: its worst-case cost is estimated at 919026016, over the limit of 100000000"
	if !strings.HasPrefix(ce.Msg, want) {
		t.Errorf("Msg = %q\nwant prefix %q", ce.Msg, want)
	}
	// Raising limits.trigger_cost raises the compile-time bound with it.
	if _, err := CompileWith(expr, Limits{Cost: 10 * DefaultCost}); err != nil {
		t.Errorf("CompileWith(10x cost) = %v; want it accepted", err)
	}
}

func TestLimitsStopEvaluation(t *testing.T) {
	expired, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	hour := time.Hour // so that only the limit under test can be hit
	cases := []struct {
		name  string
		expr  string
		lim   Limits
		ctx   context.Context
		limit string // LimitError.Limit wanted; "" for a plain error
		msg   string
	}{
		{"default cost stops a double comprehension the estimate allows",
			`event.state.labels.all(a, event.state.labels.all(b, a + b != ""))`, Limits{Timeout: hour}, context.Background(),
			LimitCost, "trigger: evaluation stopped: runtime cost limit of 1000000 exceeded (limits.trigger_cost)"},
		{"configured cost stops a single comprehension",
			`event.state.labels.exists(l, l.startsWith("needs-"))`, Limits{Cost: 1000, Timeout: hour}, context.Background(),
			LimitCost, "trigger: evaluation stopped: runtime cost limit of 1000 exceeded (limits.trigger_cost)"},
		{"cost without comprehension",
			`event.state.labels.size() > 0 && event.transition.comment.body.contains("x")`, Limits{Cost: 1, Timeout: hour}, context.Background(),
			LimitCost, "runtime cost limit of 1 exceeded"},
		{"deadline passed",
			`event.state.labels.exists(l, l == "absent")`, Limits{Timeout: 50 * time.Millisecond}, expired,
			LimitTimeout, "trigger: evaluation stopped: deadline of 50ms exceeded (limits.trigger_timeout)"},
		{"deadline passed on a trigger that may come near it",
			`event.state.labels.exists(l, l.matches("^z+$"))`, Limits{}, expired,
			LimitTimeout, "trigger: evaluation stopped: deadline of 100ms exceeded (limits.trigger_timeout)"},
		{"caller cancelled",
			`event.state.labels.exists(l, l == "absent")`, Limits{}, cancelled,
			"", "trigger: evaluation cancelled: context canceled"},
	}
	in := NewInput(bigEvent(t))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := CompileWith(tc.expr, tc.lim)
			if err != nil {
				t.Fatalf("CompileWith: %v", err)
			}
			ok, err := tr.EvalContext(tc.ctx, in)
			if ok || err == nil || err.Error() != tc.msg && !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("EvalContext = %v, %v; want false and %q", ok, err, tc.msg)
			}
			var le *LimitError
			if got := errors.As(err, &le); got != (tc.limit != "") || got && le.Limit != tc.limit {
				t.Errorf("error %v: LimitError %v (%+v), want limit %q", err, got, le, tc.limit)
			}
		})
	}
}

// The default cost limit leaves ordinary triggers alone, even on the
// largest event. (The deadline is left out: how far 100ms goes depends on
// the machine, and the race detector slows evaluation tenfold.)
func TestLimitsSpareOrdinaryTriggers(t *testing.T) {
	in := NewInput(bigEvent(t))
	for _, expr := range []string{
		`"0999` + strings.Repeat("x", 251) + `" in event.state.labels`,
		`event.state.labels.exists(l, l.matches("^0999x+$"))`,
		`event.state.labels.filter(l, l.startsWith("09")).size() == 100`,
	} {
		tr, err := CompileWith(expr, Limits{Timeout: time.Hour})
		if err != nil {
			t.Fatalf("Compile(%q): %v", expr, err)
		}
		if ok, err := tr.EvalContext(context.Background(), in); !ok || err != nil {
			t.Errorf("Eval(%q) = %v, %v; want true", expr, ok, err)
		}
	}
}

// The defaults documented for limits.trigger_cost and
// limits.trigger_timeout are the ones Compile applies.
func TestDefaultsMatchConfig(t *testing.T) {
	d := config.Default().Limits
	if uint64(d.TriggerCost) != DefaultCost || d.TriggerTimeout != DefaultTimeout {
		t.Errorf("config defaults %d, %s; trigger defaults %d, %s", d.TriggerCost, d.TriggerTimeout, DefaultCost, DefaultTimeout)
	}
}

// Eval arms the deadline only for triggers with a comprehension whose
// estimated worst case could take half of it at a pessimistic 1µs a unit.
func TestDeadlineArmedOnlyWhenItCanMatter(t *testing.T) {
	cases := []struct {
		expr string
		lim  Limits
		want bool
	}{
		{`"bug" in event.state.labels`, Limits{}, false},                         // no comprehension
		{`event.state.labels.exists(l, l.startsWith("area/"))`, Limits{}, false}, // 6 004 units
		{`event.state.labels.exists(l, l.matches("^area/.*$"))`, Limits{}, true}, // 76 004 units
		{`event.state.labels.exists(l, l.startsWith("area/"))`, Limits{Timeout: 12 * time.Millisecond}, true},
		{`event.state.labels.all(a, event.state.labels.all(b, a + b != ""))`, Limits{}, true},
	}
	for _, tc := range cases {
		tr, err := CompileWith(tc.expr, tc.lim)
		if err != nil {
			t.Fatalf("CompileWith(%q): %v", tc.expr, err)
		}
		if tr.slow != tc.want {
			t.Errorf("CompileWith(%q, %+v): deadline armed = %v, want %v", tc.expr, tc.lim, tr.slow, tc.want)
		}
	}
}
