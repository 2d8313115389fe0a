// Package polltest is what the forge pollers' tests share: a decider
// that gives every comment a harness of its own, and the same-second
// scenario that github-poll and gitlab-poll must pass against their
// emulators (changes made in the second of a change a cycle already saw).
package polltest

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// PerComment is a poll.Decider that runs, for every comment, a harness of
// its own named Prefix and the comment's id: each comment is its own
// scope, so none is coalesced into another or superseded, and each must
// end with exactly one live run. Other changes match nothing. Forge is
// the configuration's forge (the scope key's subject system).
type PerComment struct{ Prefix, Forge string }

// Harness is the harness of comment id.
func (d PerComment) Harness(id int64) string { return d.Prefix + strconv.FormatInt(id, 10) }

// Decide implements poll.Decider.
func (d PerComment) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	c := ev.Transition.Comment
	if c == nil {
		return poll.Decision{Verdict: poll.VerdictNoMatch}
	}
	name := d.Prefix + c.ID
	return poll.Decision{Verdict: poll.VerdictRun, Runs: []plan.Run{{Harness: name, Event: ev, Key: scope.KeyOf(name, ev, d.Forge),
		WorkItem: plan.WorkItem{URL: ev.Entity.URL, Source: ev.Source.System}}}}
}

// Admit implements poll.Decider: every run.
func (PerComment) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }
func (PerComment) Refund([]plan.Run)                                    {}
func (PerComment) DecidesEntities(string) bool                          { return false }

// World is an emulated forge with pollers, for SameSecond.
type World interface {
	// Advance moves the emulator's (and the pollers') clock on.
	Advance(d time.Duration)
	// Comment comments on subject i (0 ≤ i < the scenario's subjects)
	// and returns the comment's id and time as the forge stamped it.
	Comment(t *testing.T, i int, body string) (id int64, at time.Time)
	// Round runs one cycle of every poller, at once.
	Round(t *testing.T)
	// Live counts the runs not cancelled, per harness.
	Live() map[string]int
}

// SameSecond comments comments times on subjects subjects, a few hundred
// milliseconds apart (seeded by seed), with a Round after each, so that
// many comments are made in the same second as an earlier one on the same
// subject that a cycle already saw; then it lets the last second pass and
// runs two more rounds. It fails t unless every comment has exactly one
// live run of its harness (d's), and unless at least 5 comments shared a
// second with an earlier one on their subject.
func SameSecond(t *testing.T, w World, d PerComment, subjects, comments int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var ids []int64
	sameSecond, last := 0, map[int]time.Time{}
	for i := range comments {
		w.Advance(time.Duration(rng.IntN(400)) * time.Millisecond)
		n := rng.IntN(subjects)
		id, at := w.Comment(t, n, "/fs-run "+strconv.Itoa(i))
		ids = append(ids, id)
		if s := at.Truncate(time.Second); last[n].Equal(s) {
			sameSecond++
		} else {
			last[n] = s
		}
		w.Round(t)
	}
	w.Advance(10 * time.Second)
	w.Round(t)
	w.Round(t)
	if sameSecond < 5 {
		t.Fatalf("only %d comments made in the same second as an earlier one on their subject; the test needs several", sameSecond)
	}
	live := w.Live()
	lost, doubled := 0, 0
	for _, id := range ids {
		switch n := live[d.Harness(id)]; {
		case n == 0:
			lost++
			t.Errorf("comment %d: no live run", id)
		case n > 1:
			doubled++
			t.Errorf("comment %d: %d live runs", id, n)
		}
	}
	if len(live) != len(ids) {
		t.Errorf("%d harnesses with live runs, want %d (one per comment): %v", len(live), len(ids), live)
	}
	t.Logf("%d comments (%d in the same second as an earlier one on their subject): %d lost, %d doubled",
		len(ids), sameSecond, lost, doubled)
}

// Together runs fns at once (pollers racing each other) and fails t with
// their errors once all returned.
func Together(t *testing.T, fns ...func() error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(fns))
	for i, f := range fns {
		wg.Go(func() { errs[i] = f() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
