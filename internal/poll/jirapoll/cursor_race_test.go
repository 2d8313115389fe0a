package jirapoll_test

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// interleaved wraps the cursor API: before the next write is sent, the
// armed function runs (another poller's whole cycle, new changes), so
// that this poller's write, made from an older view, lands last.
type interleaved struct {
	jirapoll.CursorAPI
	armed func()
}

func (i *interleaved) SetOwnerProperty(ctx context.Context, o jira.Owner, key string, v any) error {
	if f := i.armed; f != nil {
		i.armed = nil
		f()
	}
	return i.CursorAPI.SetOwnerProperty(ctx, o, key, v)
}

// TestCursorConcurrentWriters: two pollers move the cursor at the same
// time, each one's write made from a view older than the other's and
// landing last (a newer position replaced by an older one, and the
// reverse), while changes keep arriving: the cursor never passes an
// undispatched change and every change is dispatched exactly once. On a
// plateau (every issue updated in one millisecond, more than a cycle
// reads) the positions differ by issue id only.
func TestCursorConcurrentWriters(t *testing.T) {
	for _, tc := range []struct {
		name  string
		world func(t *testing.T, n int) (*world, []string)
	}{
		{"spread updates", newWorld},
		{"plateau", newPlateauWorld},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, keys := tc.world(t, 60)
			regressed := interleavedRounds(w, keys)
			if regressed == 0 {
				t.Error("no write replaced a further cursor by an older one: the interleaving was not exercised")
			}
			t.Logf("%d of 10 rounds ended with an older cursor written over a newer one", regressed)
		})
	}
}

// interleavedRounds runs two pollers for 10 rounds, each round's cursor
// write landing after the other poller's whole cycle, then drains; it
// returns how many rounds ended with an older position written over a
// newer one.
func interleavedRounds(w *world, keys []string) int {
	var hooks [2]*interleaved
	for i, id := range []string{"a", "b"} {
		w.add(pollerOpts{id: id, n: 2, m: 4, cursor: jirapoll.CursorUser, wrapCursor: func(c jirapoll.CursorAPI) jirapoll.CursorAPI {
			hooks[i] = &interleaved{CursorAPI: c}
			return hooks[i]
		}})
	}
	next, regressed := 0, 0
	for r := range 10 {
		slow, fast := hooks[r%2], w.pollers[1-r%2]
		var between cursor.Pos
		slow.armed = func() {
			w.comment(keys[next], r)
			next++
			fast.mustCycle()
			w.check(r)
			c, _ := w.cursor()
			between = c.Pos()
			w.comment(keys[next], r)
			next++
		}
		w.comment(keys[next], r)
		next++
		w.pollers[r%2].mustCycle()
		w.check(r)
		if c, _ := w.cursor(); c.Pos().Compare(between) < 0 {
			regressed++
		}
		w.clock.Advance(time.Minute)
	}
	w.drain(10, 20)
	w.exactlyOnce()
	return regressed
}

// TestCursorCrashAfterDispatch: a poller dies right after its dispatch,
// before recording it, checkpointing or releasing its lock. The cursor
// stays before the change until another poller, once the lock is stale,
// handles it; the change is not lost (dispatched again: the test output
// cannot be asked for its runs).
func TestCursorCrashAfterDispatch(t *testing.T) {
	w, keys := newWorld(t, 20)
	dead := &recorder{}
	dead.after = func(plan.Run) {
		for _, ep := range []string{"PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}",
			"DELETE /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}", userPropPut} {
			w.sim.InjectFault(jirasim.Fault{Endpoint: ep, Status: 503, Times: -1})
		}
	}
	a := w.poller(pollerOpts{id: "a", n: 2, cursor: jirapoll.CursorUser, stale: 2 * time.Minute, out: dead})
	w.add(pollerOpts{id: "b", n: 2, cursor: jirapoll.CursorUser, stale: 2 * time.Minute})
	w.comment(keys[3], 0)
	a.mustCycle()
	if l, ok := w.lock(keys[3]); !ok || polllock.LockOwner(l.ID) != "a" {
		t.Fatalf("after the crash the lock is %+v (present %v), want a's", l, ok)
	}
	if len(dead.all()) != 2 {
		t.Fatalf("the dying poller dispatched %d runs, want 2", len(dead.all()))
	}
	w.sim.ClearFaults() // a is gone; Jira is healthy
	w.check(0)
	w.drain(1, 10)
	lc, _ := w.lastCheck(keys[3])
	if lc.TS.Before(w.changed[keys[3]]) {
		t.Fatalf("the change on %s was never checkpointed", keys[3])
	}
}
