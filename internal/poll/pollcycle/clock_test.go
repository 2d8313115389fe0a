package pollcycle_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// clockFinder is a finder that knows its platform's clock.
type clockFinder struct{ finder }

func (o clockFinder) PlatformNow(context.Context) (time.Time, bool) {
	w := o.p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now.Add(w.skew).Add(o.p.platformErr), true
}

// TestIntentLookupOnPlatformClock: an intent's time is on the tracker's
// clock; with the platform's clock an hour off it, the lookup of the
// interrupted dispatch's run still finds it (the intent mapped onto the
// platform's clock), so the change is not dispatched again. An output
// that does not know its clock looks up from the intent's time as is,
// which misses the run of a platform running behind.
func TestIntentLookupOnPlatformClock(t *testing.T) {
	for _, tc := range []struct {
		skew      time.Duration
		clock     bool
		runs      int
		recovered int
	}{
		{skew: -time.Hour, clock: true, runs: 2, recovered: 2},
		{skew: time.Hour, clock: true, runs: 2, recovered: 2},
		{skew: 0, clock: true, runs: 2, recovered: 2},
		{skew: -time.Hour, clock: false, runs: 4, recovered: 0}, // the window the platform clock closes
	} {
		t.Run(fmt.Sprintf("%v/clock=%v", tc.skew, tc.clock), func(t *testing.T) {
			w := &world{check: poll.Checkpoint{At: t0}, changes: []poll.Change{comment(time.Second, "/run both")},
				skew: tc.skew, clock: tc.clock}
			w.cycle(t, &poller{w: w, id: "A", crash: "dispatch", find: true})
			st := w.cycle(t, &poller{w: w, id: "B", find: true})
			if len(w.runs) != tc.runs || st.DispatchesRecovered != tc.recovered {
				t.Fatalf("%d runs, %d recovered; want %d runs, %d recovered", len(w.runs), st.DispatchesRecovered, tc.runs, tc.recovered)
			}
		})
	}
}

// TestIntentLookupAllowsThreeEstimates: the intent's time is on the clock
// of the poller that wrote it, the lookup maps it with the looking
// poller's estimates of the tracker's and the platform's clocks, and each
// may be off by trackerclock.MaxError in the worst direction: the lookup
// still finds the run (intents.ClockMargin), so the change is not dispatched
// again.
func TestIntentLookupAllowsThreeEstimates(t *testing.T) {
	w := &world{check: poll.Checkpoint{At: t0}, changes: []poll.Change{comment(time.Second, "/run both")}, skew: time.Hour, clock: true}
	w.cycle(t, &poller{w: w, id: "A", crash: "dispatch", find: true, trackerErr: trackerclock.MaxError})
	st := w.cycle(t, &poller{w: w, id: "B", find: true, trackerErr: -trackerclock.MaxError, platformErr: trackerclock.MaxError})
	if len(w.runs) != 2 || st.DispatchesRecovered != 2 {
		t.Fatalf("%d runs, %d recovered; want 2 runs, 2 recovered", len(w.runs), st.DispatchesRecovered)
	}
}
