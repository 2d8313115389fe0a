package jirapoll_test

import (
	"testing"

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
	e := newEnv(t, jirasim.Options{BurstLimit: 10})
	e.worldClient = true
	e.clientRPS, e.clientBurst = config.DefaultRPS, config.DefaultBurst
	runPacedPollers(t, e, func(poll.CycleStats) {})
}
