package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// slowStore is a memStore whose lock writes land delay after they are
// made, on the clock: a claim delayed in flight (a slow site, a proxy).
type slowStore struct {
	*memStore
	clk   *fakeclock.Clock
	delay time.Duration
}

func (s slowStore) Put(ctx context.Context, issue, prop string, raw []byte) error {
	s.clk.Advance(s.delay)
	return s.memStore.Put(ctx, issue, prop, raw)
}

// A late run whose claim is answered after the claim window cannot tell
// whether it landed over a poller's takeover that poller already
// verified: it does not start the agent and puts its lock back as it was
// read, unclaimed, for a poller to take over and dispatch the change
// again. A claim answered within the window starts the agent as before.
func TestLateClaimAnsweredAfterTheWindowDoesNotStart(t *testing.T) {
	const stale = 4 * time.Second // claim window: 1 s
	dispatched := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		delay   time.Duration
		started bool
	}{
		{"answered within the window", 500 * time.Millisecond, true},
		{"answered after the window", 2 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := fakeclock.New(dispatched.Add(6 * time.Second))
			s := newMemStore()
			orig := polllock.Lock{ID: testID, TS: dispatched, Phase: polllock.PhasePending,
				Runs: polllock.Placeholders("gha-dispatch", 1), From: &polllock.Position{TS: dispatched.Add(-time.Hour)}}
			s.set(testKey, orig)
			var log syncio.Buffer
			ran := filepath.Join(t.TempDir(), "ran")
			store := slowStore{memStore: s, clk: clk, delay: tc.delay}
			spec := testSpec(t, store, &log, "touch="+ran)
			lk, err := NewLocker(store, testRef, stale, plan.Ref{Driver: "gha-dispatch", ID: "42"})
			if err != nil {
				t.Fatal(err)
			}
			lk.Now, lk.Sleep = clk.Now, clk.Sleep
			spec.Locker = lk
			res, err := Run(context.Background(), spec)
			_, serr := os.Stat(ran)
			if started := serr == nil; started != tc.started {
				t.Fatalf("agent started %v, want %v (code %d, err %v)\n%s", started, tc.started, res.ExitCode, err, log.String())
			}
			if tc.started {
				if err != nil || res.ExitCode != 0 {
					t.Errorf("code %d err %v", res.ExitCode, err)
				}
				return
			}
			if err == nil || IsLostLock(err) || IsInput(err) {
				t.Errorf("err = %v, want a failed claim (exit 1)", err)
			}
			if got := s.lock(t, testKey); got.Claimed() || !got.TS.Equal(orig.TS) || got.ID != testID || got.From == nil {
				t.Errorf("lock left %+v, want it put back as read: unclaimed, owed a give-back", got)
			}
		})
	}
}

// hookClock is the run's clock; hook, when set, runs once at the first
// sleep at least min long, as that wait begins.
type hookClock struct {
	*fakeclock.Clock
	min  time.Duration
	hook func()
}

func (c *hookClock) Sleep(ctx context.Context, d time.Duration) error {
	if h := c.hook; h != nil && d >= c.min {
		c.hook = nil
		h()
	}
	return c.Clock.Sleep(ctx, d)
}

// A late run's claim that Jira refuses with a 429 and a Retry-After
// longer than the claim window is not sent again after that wait: a
// poller may take the lock over meanwhile (here it does, during the
// wait), and a claim landing then would overwrite the taker's verified
// lock. The run claims again from a fresh read, which shows the lock
// taken over: it exits 3 and leaves the taker's lock alone. With no
// takeover, the fresh claim is made in time (its window starting when the
// read left, after the Retry-After) and the agent starts.
func TestLateClaimRefusedPastTheWindowClaimsAgainFromAFreshRead(t *testing.T) {
	for _, takeover := range []bool{true, false} {
		t.Run(map[bool]string{true: "a poller takes over during the wait", false: "no takeover"}[takeover], func(t *testing.T) {
			dispatched := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			clk := &hookClock{Clock: fakeclock.New(dispatched.Add(20 * time.Minute)), min: 30 * time.Second}
			sim := jirasim.New(jirasim.Options{RequiredToken: "test-token", Now: clk.Now})
			base, err := sim.Start()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sim.Close)
			api, err := jira.New(jira.Options{BaseURL: base, Token: "test-token", MaxRetries: 2, Timeout: 5 * time.Second,
				Now: clk.Now, Sleep: clk.Sleep})
			if err != nil {
				t.Fatal(err)
			}
			issue := sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "runner test"})
			prop, _ := polllock.Keys("acme/platform")
			ref := &plan.PollLock{ID: testID, Driver: DriverJiraPoll, Property: issue + "/" + prop}
			sim.SetPropertyDirect(issue, prop, polllock.Lock{ID: testID, TS: dispatched, Phase: polllock.PhasePending,
				Runs: polllock.Placeholders("gha-dispatch", 1), From: &polllock.Position{TS: dispatched.Add(-time.Hour)}}.Marshal())
			taker := polllock.Lock{ID: "poller-b.1", Phase: polllock.PhasePending, Runs: polllock.Placeholders("gha-dispatch", 1),
				From: &polllock.Position{TS: dispatched.Add(-time.Hour)}, Gone: []string{testID}}
			if takeover {
				clk.hook = func() {
					taker.TS = clk.Now()
					sim.SetPropertyDirect(issue, prop, taker.Marshal())
				}
			}
			sim.InjectFault(jirasim.Fault{Endpoint: propertyPut, Status: 429, RetryAfter: time.Minute})
			lk, err := NewLocker(JiraStore{API: api}, ref, 15*time.Minute, plan.Ref{Driver: "gha-dispatch", ID: "42"})
			if err != nil {
				t.Fatal(err)
			}
			lk.Now, lk.Sleep = clk.Now, clk.Sleep
			err = lk.Acquire(context.Background())
			raw, _ := sim.Property(issue, prop)
			got, perr := polllock.Parse(raw)
			if perr != nil {
				t.Fatal(perr)
			}
			if !takeover {
				if err != nil || got.ID != testID || !got.Claimed() {
					t.Fatalf("err %v, lock %+v: want the run's claim made from the fresh read", err, got)
				}
				// the refused claim, then one from the fresh read: its window
				// starts when the read left, after the Retry-After
				if n := sim.Calls()[propertyPut]; n != 2 {
					t.Errorf("%d claims sent, want 2", n)
				}
				return
			}
			if !IsLostLock(err) {
				t.Errorf("err = %v, want the lock lost to the taker (exit 3)", err)
			}
			if got.ID != taker.ID || got.Claimed() {
				t.Errorf("lock %+v, want the taker's lock left alone", got)
			}
		})
	}
}
