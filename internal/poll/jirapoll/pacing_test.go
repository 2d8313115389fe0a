package jirapoll_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// Adaptive pacing at scale: a site budget of 10 calls per second shared
// by 4 pollers, 40 triggering comments spread over the first cycles.
// Every change is dispatched exactly once per matching harness and at
// most 10 % of the calls are answered 429 (measured: about 2 %; 12 % with
// the header pacing switched off). Time on the site is the world's clock;
// the clients' pacing waits pass it. Runs last 5 s of world time, longer
// than a pacing pause, as real runs do.
func TestPacedPollersUnderRateBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, jirasim.Options{RateBudget: &jirasim.RateBudget{Points: 10, Window: time.Second}})
	e.worldClient = true
	var budgetSeen atomic.Bool
	runPacedPollers(t, e, func(s poll.CycleStats) {
		if s.RateBudget.Known && s.RateBudget.Limit == 10 {
			budgetSeen.Store(true)
		}
	})
	if !budgetSeen.Load() {
		t.Error("no cycle reported the site's rate budget")
	}
}

// runPacedPollers runs 4 pollers on e, taking turns a cycle each (so that
// the run is repeatable), over 40 issues whose triggering comments are
// spread over the first 20 cycles, until every change was dispatched; it
// fails t on a lost or doubled change, or when over 10 % of the calls
// were answered 429. observe also sees every cycle's stats.
func runPacedPollers(t *testing.T, e *env, observe func(poll.CycleStats)) {
	t.Helper()
	const pollers, issues, cycles = 4, 40, 20
	interval := 250 * time.Millisecond
	keys := e.issues(issues, seeded, "")
	sch := newSchedule(e, keys, cycles*interval, 5*time.Second)
	rec := &recorder{after: sch.dispatched}
	want := 2 * len(keys)

	var calls, cycleErrors atomic.Int64
	var pls []*poller
	for p := range pollers {
		pls = append(pls, e.poller(pollerOpts{id: fmt.Sprintf("poller-%d", p), out: rec, seed: uint64(p + 20),
			stale: 10 * time.Minute, jitter: 100 * time.Millisecond, observer: func(s poll.CycleStats) {
				calls.Add(int64(s.APICalls))
				observe(s)
			}}))
	}
	for n := 0; n < cycles || (n < 6*cycles && !(sch.allCommented() && len(rec.all()) >= want)); n++ {
		for _, pl := range pls {
			if _, err := pl.cycle(context.Background()); err != nil {
				cycleErrors.Add(1) // a failed cycle is retried by the next; losses show below
			}
			sch.step(interval / pollers)
		}
	}

	counts := rec.count()
	lost, dups := 0, 0
	for _, k := range keys {
		for _, h := range []string{"triage", "audit"} {
			switch n := counts[k+"/"+h]; {
			case n == 0:
				lost++
			case n > 1:
				dups += n - 1
			}
		}
	}
	refused := e.sim.RateLimited()
	share := float64(refused) / float64(max(calls.Load(), 1))
	t.Logf("calls=%d refused=%d (%.1f%%) failed cycles=%d lost=%d duplicates=%d world time=%s",
		calls.Load(), refused, 100*share, cycleErrors.Load(), lost, dups, e.clock.Now().Sub(epoch).Round(time.Second))
	if lost != 0 || dups != 0 {
		t.Errorf("lost %d, duplicates %d; want none", lost, dups)
	}
	if share > 0.10 {
		t.Errorf("%d of %d calls (%.1f%%) answered 429, want at most 10%%", refused, calls.Load(), 100*share)
	}
}
