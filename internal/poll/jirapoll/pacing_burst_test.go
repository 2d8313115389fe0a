package jirapoll_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// Pacing on the 429s themselves: the site's per-second burst limit (10
// calls in any rolling second) moves no X-RateLimit-* header; 4 pollers
// at the configured defaults (10 calls/s, burst 20), 40 triggering
// comments spread over the first cycles. Every change is
// dispatched exactly once per matching harness and at most 10 % of the
// calls are answered 429. Time on the site is the world's clock; the
// clients' pacing waits pass it.
func TestPacedPollersUnderBurstLimit(t *testing.T) {
	t.Parallel()
	const pollers, issues, cycles = 4, 40, 20
	interval := 250 * time.Millisecond
	e := newEnv(t, jirasim.Options{BurstLimit: 10})
	e.worldClient = true
	e.clientRPS, e.clientBurst = config.DefaultRPS, config.DefaultBurst
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
			}}))
	}
	for n := 0; n < cycles || (n < 6*cycles && !(sch.allCommented() && len(rec.all()) >= want)); n++ {
		for _, pl := range pls {
			if _, err := pl.cycle(context.Background()); err != nil {
				cycleErrors.Add(1)
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
