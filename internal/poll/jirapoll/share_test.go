package jirapoll_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
)

// TestCursorStarvationFree: more changes arrive every cycle than the
// pollers can serve (6 new per round, 2 pollers × N=2); every change is
// still dispatched within ⌈backlog/(N·pollers)⌉+2 rounds of its arrival,
// backlog being the undispatched changes at its arrival, itself included.
func TestCursorStarvationFree(t *testing.T) {
	const n, perRound, rounds = 2, 6, 8
	w, _ := newWorld(t, 0)
	for _, id := range []string{"a", "b"} {
		w.add(pollerOpts{id: id, n: n, cursor: jirapoll.CursorUser})
	}
	backlog := map[string]int{}
	for r := range rounds {
		for range perRound {
			k := w.issue()
			w.comment(k, r)
			backlog[k] = len(w.arrival) - len(w.done)
		}
		w.cycleAll(r)
		w.clock.Advance(time.Minute)
	}
	w.drain(rounds, 40)
	w.exactlyOnce()
	worst := -rounds
	for k, a := range w.arrival {
		waited := w.done[k] - a + 1
		bound := (backlog[k]+n*2-1)/(n*2) + 2
		if waited > bound {
			t.Errorf("%s waited %d rounds with a backlog of %d, bound %d", k, waited, backlog[k], bound)
		}
		worst = max(worst, waited-bound)
	}
	t.Logf("%d changes; closest to its bound: %d rounds (0: at the bound)", len(w.arrival), worst)
}

// TestCursorShareDisjoint: four pollers that the cursor lists as alive
// each keep a disjoint share of the eligible issues; when one of them is
// dead (still listed), the three others take its issues within
// ⌈backlog/(N·live pollers)⌉+2 cycles, without losing or doubling any.
func TestCursorShareDisjoint(t *testing.T) {
	const n = 5
	w, keys := newWorld(t, 40)
	ids := []string{"p1", "p2", "p3", "p4"}
	now := w.clock.Now()
	doc := cursor.Cursor{At: now.Add(-time.Minute), By: "p1", TS: now, Pollers: map[string]time.Time{}}
	for _, id := range ids {
		doc.Pollers[id] = now
	}
	w.putCursor(doc)
	for _, k := range keys {
		w.comment(k, 0)
	}
	owner := map[string]string{}
	var attempted, lost int
	count := func(s poll.CycleStats) { attempted, lost = attempted+s.LocksAttempted, lost+s.LocksLost+s.LocksSkipped }
	for _, id := range ids {
		p := w.add(pollerOpts{id: id, n: n, cursor: jirapoll.CursorUser, observer: count})
		// A process shares from its second discovery on.
		if disc, err := p.drv.Discover(context.Background()); err != nil || disc.Ordered || disc.Cursor.Shared != 0 {
			t.Fatalf("first discovery of %s shared work (ordered %v, left %d): %v", id, disc.Ordered, disc.Cursor.Shared, err)
		}
	}
	for i, id := range ids {
		disc, err := w.pollers[i].drv.Discover(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(disc.Eligible) == 0 || disc.Cursor.Shared == 0 {
			t.Errorf("%s kept %d and left %d: want a share of each", id, len(disc.Eligible), disc.Cursor.Shared)
		}
		for _, it := range disc.Eligible {
			if o, dup := owner[it.ID]; dup {
				t.Errorf("%s taken by both %s and %s", it.ID, o, id)
			}
			owner[it.ID] = id
		}
	}
	if len(owner) != len(keys) {
		t.Fatalf("the shares cover %d of %d issues", len(owner), len(keys))
	}
	// p4 dies now (it stays in the cursor's list until its entry expires).
	w.pollers = w.pollers[:3]
	rounds := w.drain(0, 20)
	w.exactlyOnce()
	if bound := (len(keys)+n*3-1)/(n*3) + 2; rounds > bound {
		t.Errorf("all issues dispatched after %d cycles, bound %d", rounds, bound)
	}
	if lost > 0 {
		t.Errorf("%d of %d lock attempts lost to or skipped for another poller, want none", lost, attempted)
	}
	t.Logf("drained in %d cycles; %d of p4's issues taken over; %d lock attempts, %d collisions", rounds, countOwned(owner, "p4"), attempted, lost)
}

func countOwned(owner map[string]string, id string) int {
	n := 0
	for _, o := range owner {
		if o == id {
			n++
		}
	}
	return n
}

// TestAssignBalanced: the oldest N·pollers issues are split N per
// poller, each to the first poller in its rendezvous order with room; the
// rest wait with their preferred poller; with room to spare every issue
// stays with its preferred poller.
func TestAssignBalanced(t *testing.T) {
	const n = 5
	pollers := []string{"a", "b", "c", "d"}
	items := make([]*poll.Item, 60)
	for i := range items {
		items[i] = &poll.Item{ID: fmt.Sprintf("PROJ-%d", i+1)}
	}
	owners := jirapoll.Assign(items, pollers, n)
	load := map[string]int{}
	moved := 0
	for i, o := range owners[:n*len(pollers)] {
		load[o]++
		if o != jirapoll.Preferred(items[i].ID, pollers) {
			moved++
		}
	}
	for _, p := range pollers {
		if load[p] != n {
			t.Errorf("%s assigned %d of the oldest %d, want %d: %v", p, load[p], n*len(pollers), n, load)
		}
	}
	if moved == 0 {
		t.Error("no issue of the oldest 20 moved off its preferred poller: the test's keys do not exercise the balance")
	}
	for i, o := range owners[n*len(pollers):] {
		if want := jirapoll.Preferred(items[n*len(pollers)+i].ID, pollers); o != want {
			t.Errorf("%s beyond every poller's room assigned to %s, want its preferred %s", items[n*len(pollers)+i].ID, o, want)
		}
	}
	few := items[:6]
	for i, o := range jirapoll.Assign(few, pollers, n) {
		if want := jirapoll.Preferred(few[i].ID, pollers); o != want {
			t.Errorf("with room to spare %s assigned to %s, want its preferred %s", few[i].ID, o, want)
		}
	}
}

// TestPreferredStable: removing a poller moves only its own keys.
func TestPreferredStable(t *testing.T) {
	all := []string{"a", "b", "c", "d"}
	less := slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == "c" })
	counts := map[string]int{}
	for i := range 2000 {
		key := fmt.Sprintf("PROJ-%d", i+1)
		p := jirapoll.Preferred(key, all)
		counts[p]++
		if q := jirapoll.Preferred(key, less); p != "c" && q != p {
			t.Fatalf("%s moved from %s to %s when c left", key, p, q)
		}
	}
	for _, id := range all {
		if counts[id] < 400 || counts[id] > 600 {
			t.Errorf("poller %s preferred for %d of 2000 keys: unbalanced %v", id, counts[id], counts)
		}
	}
	if jirapoll.Preferred("PROJ-1", nil) != "" {
		t.Error("no pollers: want no preferred poller")
	}
}
