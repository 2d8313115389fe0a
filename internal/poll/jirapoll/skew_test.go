package jirapoll_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// TestSkewedSiteOneRun: with Jira's clock an hour off the poller's (and
// with two pollers whose host clocks disagree by more than the stale
// threshold), one comment over five cycles is exactly one run, and no lock
// is left. The pollers compare Jira's times with Jira's clock, read from
// its answers, and write their locks on it.
func TestSkewedSiteOneRun(t *testing.T) {
	tests := []struct {
		site  time.Duration // the site's clock ahead of the world's
		hostB time.Duration // poller B's host clock ahead of the world's
	}{
		{site: time.Hour},
		{site: -time.Hour},
		{site: time.Hour, hostB: -20 * time.Minute},
		{site: -time.Hour, hostB: 20 * time.Minute},
		{site: 0, hostB: time.Hour},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("site %v, poller B %v", tt.site, tt.hostB), func(t *testing.T) {
			e := newSkewedEnv(t, jirasim.Options{}, tt.site)
			key := e.issues(1, seeded, "hello")[0]
			rec := &recorder{}
			stale := 15 * time.Minute
			a := e.poller(pollerOpts{id: "poller-a", out: rec, stale: stale})
			b := e.poller(pollerOpts{id: "poller-b", out: rec, stale: stale, hostSkew: tt.hostB, seed: 2})
			// The run holds the lock through cycles 1 to 3, refreshed on
			// the site's clock like the runner does, then ends (cycle 4).
			for i := range 5 {
				a.mustCycle()
				b.mustCycle()
				if l, ok := e.lock(key); ok && i < 3 {
					l.TS = e.siteNow()
					e.sim.SetPropertyDirect(key, lockKey(), l.Marshal())
				} else if ok {
					e.sim.SetPropertyDirect(key, lockKey(), nil)
				}
				e.clock.Advance(30 * time.Second)
			}
			if got := rec.count(); len(got) != 1 || got[key+"/audit"] != 1 {
				t.Fatalf("runs = %v, want exactly one audit run on %s", got, key)
			}
			if _, ok := e.lock(key); ok {
				t.Errorf("a lock is left on %s", key)
			}
			lc, _ := e.lastCheck(key)
			if lc.TS.Before(e.siteNow().Add(-3 * time.Minute)) {
				t.Errorf("lastCheck %v is not on the site's clock (site now %v)", lc.TS, e.siteNow())
			}
		})
	}
}

// TestSkewedSiteCursorLosesNothing: with the discovery cursor and Jira's
// clock an hour off the poller's, comments made between cycles are each
// dispatched exactly once: the cursor is placed on Jira's clock.
func TestSkewedSiteCursorLosesNothing(t *testing.T) {
	for _, site := range []time.Duration{time.Hour, -time.Hour} {
		t.Run(site.String(), func(t *testing.T) {
			e := newSkewedEnv(t, jirasim.Options{}, site)
			keys := e.issues(3, seeded, "")
			rec := &recorder{after: e.release}
			p := e.poller(pollerOpts{out: rec, stale: 15 * time.Minute, cursor: jirapoll.CursorUser})
			want := map[string]int{}
			for i := range 6 {
				k := keys[i%len(keys)]
				e.sim.AddComment(k, alice, fmt.Sprintf("comment %d", i))
				want[k+"/audit"]++
				e.clock.Advance(30 * time.Second)
				p.mustCycle()
				e.clock.Advance(30 * time.Second)
			}
			var ids []string
			for _, r := range rec.all() {
				ids = append(ids, r.Event.Transition.Comment.ID)
			}
			if got := rec.count(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("runs = %v (comments %v), want %v", got, ids, want)
			}
		})
	}
}
