package jirapoll_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// TestSkewedSiteOneRun: with Jira's clock an hour off the poller's, and
// pollers and the runner whose host clocks disagree by more than the stale
// threshold, one comment over five cycles is exactly one run, the run
// (runner.Locker, as `fullsend run`) takes and keeps its lock, and no lock
// is left. Everyone compares Jira's times with Jira's clock, read from its
// answers, and writes the lock on it.
func TestSkewedSiteOneRun(t *testing.T) {
	tests := []struct {
		site   time.Duration // the site's clock ahead of the world's
		hostB  time.Duration // poller B's host clock ahead of the world's
		runner time.Duration // the runner's host clock ahead of the world's
	}{
		{site: time.Hour},
		{site: -time.Hour},
		{site: time.Hour, hostB: -20 * time.Minute, runner: 20 * time.Minute},
		{site: -time.Hour, hostB: 20 * time.Minute, runner: -20 * time.Minute},
		{site: 0, hostB: time.Hour, runner: -time.Hour},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("site %v, poller B %v, runner %v", tt.site, tt.hostB, tt.runner), func(t *testing.T) {
			ctx := context.Background()
			e := newSkewedEnv(t, jirasim.Options{}, tt.site)
			key := e.issues(1, seeded, "hello")[0]
			stale := 15 * time.Minute
			rtc := trackerclock.New(func() time.Time { return e.clock.Now().Add(tt.runner) })
			rclient := e.clientOn(rtc)
			var runs []*runner.Locker
			rec := &recorder{after: func(r plan.Run) { // the run starts at once
				l, err := runner.NewLocker(runner.JiraStore{API: rclient}, r.PollLock, stale,
					plan.Ref{Driver: "recorder", ID: fmt.Sprint(len(runs) + 1)})
				if err != nil {
					t.Fatal(err)
				}
				l.Now = rtc.Now
				if err := l.Acquire(ctx); err != nil {
					t.Errorf("run %d refused its lock: %v", len(runs)+1, err)
				}
				runs = append(runs, l)
			}}
			a := e.poller(pollerOpts{id: "poller-a", out: rec, stale: stale})
			b := e.poller(pollerOpts{id: "poller-b", out: rec, stale: stale, hostSkew: tt.hostB, seed: 2})
			// The run refreshes its lock after cycles 1 to 3, then ends.
			for i := range 5 {
				a.mustCycle()
				b.mustCycle()
				for j, l := range runs {
					if i < 3 {
						if ours, why, err := l.Refresh(ctx); !ours || err != nil {
							t.Errorf("cycle %d: run %d lost its lock: %s %v", i+1, j+1, why, err)
						}
					} else if _, err := l.Release(ctx); err != nil {
						t.Errorf("run %d: release: %v", j+1, err)
					}
				}
				if i >= 3 {
					runs = nil
				}
				e.clock.Advance(30 * time.Second)
			}
			if got := rec.count(); len(got) != 1 || got[key+"/audit"] != 1 {
				t.Fatalf("runs = %v, want exactly one audit run on %s", got, key)
			}
			if _, ok := e.lock(key); ok {
				t.Errorf("a lock is left on %s", key)
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

// TestFreshPollerOnSkewedSite: a poller's first call in a fresh process
// may be the discovery itself (the account and roles came from the state
// directory): with Jira an hour ahead, it must judge the checkpoints that
// search shows on Jira's clock, read from that answer, not on its host's.
// Before, every lastCheck looked an hour in the future: "corrupt", the
// item rewound to its creation, and locks never went stale.
func TestFreshPollerOnSkewedSite(t *testing.T) {
	for _, cursor := range []string{"", jirapoll.CursorUser} {
		t.Run("cursor "+cursor, func(t *testing.T) {
			e := newSkewedEnv(t, jirasim.Options{}, time.Hour)
			e.issues(3, seeded, "hello")
			out := &recorder{}
			first := e.poller(pollerOpts{id: "poller-a", out: out, cursor: cursor})
			first.mustCycle()
			if n := len(out.all()); n != 3 {
				t.Fatalf("first poller dispatched %d runs, want 3", n)
			}
			var logs syncio.Buffer
			fresh := e.poller(pollerOpts{id: "poller-b", out: out, cursor: cursor, log: slog.New(slog.NewTextHandler(&logs, nil))})
			fresh.mustCycle()
			if n := len(out.all()); n != 3 {
				t.Errorf("the fresh poller dispatched again: %d runs", n)
			}
			if strings.Contains(logs.String(), "corrupt lastCheck") {
				t.Errorf("the fresh poller judged lastCheck on its host clock:\n%s", logs.String())
			}
		})
	}
}
