package pollcycle_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
)

// failHarnesses fails the runs of the listed harnesses with err, without
// starting them when err wraps output.ErrNotStarted.
type failHarnesses struct {
	finder
	fail map[string]bool
	err  error
}

func (o failHarnesses) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	var pass []plan.Run
	for _, r := range runs {
		if !o.fail[r.Harness] || !errors.Is(o.err, output.ErrNotStarted) {
			pass = append(pass, r)
		}
	}
	started := o.finder.Dispatch(ctx, pass)
	out := make([]output.Result, len(runs))
	j := 0
	for i, r := range runs {
		out[i].Run = r
		if !o.fail[r.Harness] || !errors.Is(o.err, output.ErrNotStarted) {
			out[i] = started[j]
			j++
		}
		if o.fail[r.Harness] {
			out[i].Ref, out[i].Err = nil, o.err
		}
	}
	return out
}

// A dispatch the output says started nothing (output.ErrNotStarted)
// leaves no intent: the next cycle dispatches it again at once. Any other
// failure keeps its intent (the run may exist), and the next cycles leave
// the item alone, before locking it, until the intent settled.
func TestRefusedDispatchLeavesNoIntent(t *testing.T) {
	refused := fmt.Errorf("HTTP 422 (%w)", output.ErrNotStarted)
	unknown := errors.New("GitHub answered 200 with content type \"text/html\"")
	tests := []struct {
		name       string
		fail       map[string]bool
		err        error
		wantIntent bool
	}{
		{"both refused", map[string]bool{"a": true, "b": true}, refused, false},
		{"one refused, one started", map[string]bool{"b": true}, refused, false},
		{"both unknown", map[string]bool{"a": true, "b": true}, unknown, true},
		{"one unknown, one started", map[string]bool{"b": true}, unknown, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &world{check: poll.Checkpoint{At: t0}, changes: []poll.Change{comment(time.Second, "/run both")}, step: time.Second}
			p := &poller{w: w, id: "A"}
			o := opts(p, fakeCore{}, nil)
			o.Output = failHarnesses{finder{platform{p}}, tc.fail, tc.err}
			now := t0.Add(time.Hour)
			o.Now = func() time.Time { return now }
			res, err := pollcycle.Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := w.check.Intents["b"]; ok != tc.wantIntent {
				t.Fatalf("checkpoint %+v: b's intent kept %v, want %v", w.check, ok, tc.wantIntent)
			}
			if got, want := res.Stats.DispatchesRefused, map[bool]int{true: 0, false: len(tc.fail)}[tc.wantIntent]; got != want {
				t.Errorf("dispatches_refused = %d, want %d", got, want)
			}
			if w.check.Pos("b") != t0 {
				t.Errorf("b's position moved to %s: the change would be lost", w.check.Pos("b"))
			}
			// The next cycle, a second later: a refused dispatch is retried;
			// an unknown one waits, without a lock write.
			w.endRuns() // the started run ended and released the lock
			now = now.Add(time.Second)
			o.Output = finder{platform{p}}
			before := len(w.runs)
			res, err = pollcycle.Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			retried := len(w.runs) > before
			if retried == tc.wantIntent {
				t.Errorf("next cycle dispatched %v, want %v", retried, !tc.wantIntent)
			}
			if tc.wantIntent && (res.Stats.ItemsSettling != 1 || res.Stats.LocksAttempted != 0) {
				t.Errorf("next cycle stats %+v: want the item settling and no lock write", res.Stats)
			}
		})
	}
}
