package trackerclock_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// TestClockErrorBoundsTwoEstimates: processes that each read the
// service's clock from an answer of their own (any host clock offset,
// fraction of a second, round trip, and moment of the round trip the
// service stamped its Date at) hold estimates at most ClockError apart
// once their clocks are known: the margin a judgement of a lock that must
// agree with another process's allows. A process whose answer cannot
// keep the bound must not count its clock as known.
func TestClockErrorBoundsTwoEstimates(t *testing.T) {
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC) // the true time, the service's clock
	ms := time.Millisecond
	var lowest, highest time.Duration
	var low, high string
	first := true
	for _, skew := range []time.Duration{-time.Hour, -700 * ms, 0, 300 * ms, time.Hour} { // service − host
		for _, frac := range []time.Duration{0, ms, 500 * ms, 999 * ms} {
			for _, rtt := range []time.Duration{0, 50 * ms, 900 * ms, time.Second, 2 * time.Second, 5 * time.Second, 9 * time.Second} {
				for _, stamp := range []time.Duration{0, rtt / 2, rtt} {
					sent := base.Add(frac)
					host := func(true time.Time) time.Time { return true.Add(-skew) }
					c := trackerclock.New(func() time.Time { return host(sent.Add(rtt)) })
					c.Observe(host(sent), host(sent.Add(rtt)), sent.Add(stamp).UTC().Format(http.TimeFormat))
					if !c.Known() {
						continue
					}
					e := c.Now().Sub(sent.Add(rtt)) // the estimate's error
					name := fmt.Sprintf("offset %v, fraction %v, round trip %v, stamped at %v", skew, frac, rtt, stamp)
					if first || e < lowest {
						lowest, low = e, name
					}
					if first || e > highest {
						highest, high = e, name
					}
					first = false
				}
			}
		}
	}
	if highest-lowest > trackerclock.ClockError {
		t.Fatalf("two processes' estimates differ by %v, over ClockError (%v): %s is %v off, %s %v",
			highest-lowest, trackerclock.ClockError, high, highest, low, lowest)
	}
}
