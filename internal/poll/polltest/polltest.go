// Package polltest is what the forge pollers' tests share: deciders that
// give every comment a harness of its own or run one harness on a slash
// command (deciders.go), the same-second scenario that github-poll and
// gitlab-poll must pass against their emulators (changes made in the
// second of a change a cycle already saw), and the volume benchmark and
// one-cycle cases (volume.go).
package polltest

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"
)

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
