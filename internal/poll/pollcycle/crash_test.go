package pollcycle_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/jsonout"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// world is one work item as pollers and a platform see it: its lock, its
// checkpoint (with intents), its changes and the runs the platform
// started. Pollers are killed deterministically: at the crash point the
// poller's process "dies" and none of its later writes lands.
type world struct {
	mu      sync.Mutex
	lockID  string // "" when there is no lock
	stale   bool
	check   poll.Checkpoint
	changes []poll.Change
	runs    []plan.Run    // started by the platform, in order
	live    int           // runs not ended yet (the first len(runs)-live ended)
	cycles  int           // cycles run so far: each starts step after the last
	step    time.Duration // 0: a stale threshold (15 minutes)
	// The platform's clock runs skew ahead of the tracker's (the cycle's
	// Now, now); created are the runs' creation times on it. clock: the
	// output implements poll.PlatformClock.
	skew    time.Duration
	clock   bool
	now     time.Time
	created []time.Time
	// queued: the runs started so far wait in a CI queue and never claim
	// the lock, so the next poller takes an unclaimed lock over
	// (Item.TakenOver): those runs will not start any more.
	queued, takeover bool
}

// poller is one poller process: its driver and output share dead.
type poller struct {
	w     *world
	id    string
	crash string // intent, dispatch, record (after it, or where it would be), checkpoint, "before checkpoint", or ""
	dead  bool
	find  bool // the output implements poll.DispatchFinder
	// How far the poller's estimates of the tracker's and the platform's
	// clocks are off the world's.
	trackerErr, platformErr time.Duration
}

// die reports whether the poller is dead, and kills it at point.
func (p *poller) at(point string) {
	if p.crash == point {
		p.dead = true
	}
}

func (p *poller) Name() string { return "world-poll" }

func (p *poller) Discover(context.Context) (*poll.Discovery, error) {
	w := p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	last := w.changes[len(w.changes)-1].At
	if (w.lockID != "" && !w.stale) || !(last.After(w.check.At) || w.check.Pending() || len(w.check.Intents) > 0) {
		return &poll.Discovery{Candidates: 1}, nil
	}
	it := &poll.Item{ID: "P-1", Base: w.check.Clone(), Cutoff: last, StaleLock: w.stale, TakenOver: w.stale && w.takeover}
	if it.TakenOver {
		it.GoneLocks = []string{w.lockID} // the runs of the lock replaced cannot start
	}
	return &poll.Discovery{Candidates: 1, Eligible: []*poll.Item{it}}, nil
}

func (p *poller) RemoveStale(context.Context, []*poll.Item) (int, error) { return 0, nil }

func (p *poller) Recheck(context.Context, []*poll.Item) error { return nil }

func (p *poller) Acquire(_ context.Context, items []*poll.Item) error {
	w := p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, it := range items {
		it.Attempt()
		w.lockID, w.stale = p.id, false
		it.Hold()
	}
	return nil
}

func (p *poller) Detect(_ context.Context, items []*poll.Item) error {
	for _, it := range items {
		it.Changes = p.w.changes
	}
	return nil
}

func (p *poller) Verify(_ context.Context, items []*poll.Item) error {
	w := p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, it := range items {
		if w.lockID != p.id {
			it.Lose()
			continue
		}
		it.Base = w.check.Clone()
	}
	return nil
}

func (p *poller) Dispatched(context.Context, []*poll.Item) error {
	if !p.dead {
		p.at("record")
	}
	return nil
}

func (p *poller) Advance(_ context.Context, _ *poll.Item, cp poll.Checkpoint) error {
	if len(cp.Runs) > 0 && !p.dead {
		p.at("record") // the record step is skipped when the lock fits the runs
	}
	if len(cp.Intents) == 0 {
		p.at("before checkpoint")
	}
	if p.dead {
		return errors.New("killed")
	}
	p.w.mu.Lock()
	p.w.check = cp.Clone()
	p.w.mu.Unlock()
	if len(cp.Intents) > 0 {
		p.at("intent")
	} else {
		p.at("checkpoint")
	}
	return nil
}

func (p *poller) Release(_ context.Context, _ *poll.Item, _ bool) error {
	if p.dead {
		return errors.New("killed")
	}
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	if p.w.lockID == p.id {
		p.w.lockID = ""
	}
	return nil
}

func (p *poller) PollLock(*poll.Item) *plan.PollLock {
	return &plan.PollLock{ID: p.id, Driver: "world-poll", Property: "P-1/lock"}
}

func (p *poller) Usage() poll.Usage { return poll.Usage{} }

func (p *poller) Capabilities() poll.Capabilities { return poll.Capabilities{} }

// platform is the poller's output: it starts runs in the world.
type platform struct{ p *poller }

func (o platform) Name() string { return "world-out" }

func (o platform) Dispatch(_ context.Context, runs []plan.Run) []output.Result {
	res := make([]output.Result, len(runs))
	w := o.p.w
	for i, r := range runs {
		res[i].Run = r
		if o.p.dead {
			res[i].Err = errors.New("killed")
			continue
		}
		w.mu.Lock()
		w.runs = append(w.runs, r)
		w.created = append(w.created, w.now.Add(w.skew))
		w.live++
		res[i].Ref = &plan.Ref{Driver: "world-out", ID: fmt.Sprint(len(w.runs))}
		w.mu.Unlock()
	}
	o.p.at("dispatch")
	return res
}

// finder is a platform that can be asked for a run's idempotency key.
type finder struct{ platform }

func (o finder) FindDispatched(_ context.Context, run plan.Run, since time.Time) (*plan.Ref, bool, error) {
	w := o.p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, r := range w.runs {
		if w.created[i].Before(since) {
			continue // the platform lists runs created since then
		}
		if run.WorkItem.IdempotencyKey != "" && r.WorkItem.IdempotencyKey == run.WorkItem.IdempotencyKey {
			return &plan.Ref{Driver: "world-out", ID: fmt.Sprint(i + 1)}, true, nil
		}
	}
	return nil, false, nil
}

// endRuns ends every live run: like `fullsend run`, the last one deletes
// the lock when it carries the id of the poller that dispatched them.
func (w *world) endRuns() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.queued {
		w.queued = false // the runs queued so far never start; later ones do
		return
	}
	if w.live > 0 && w.lockID != "" && w.lockID == w.runs[len(w.runs)-1].PollLock.ID {
		w.lockID = ""
	}
	w.live = 0
}

func (w *world) cycle(t *testing.T, p *poller) poll.CycleStats {
	t.Helper()
	var out output.Driver = platform{p}
	if p.find {
		out = finder{platform{p}}
		if w.clock {
			out = clockFinder{finder{platform{p}}}
		}
	}
	o := opts(p, fakeCore{}, nil)
	o.Output = out
	// A poller takes an item over once the previous lock went stale
	// (15 minutes by default), so each cycle starts that much later:
	// interrupted dispatches' intents are past IntentSettle.
	w.mu.Lock()
	w.cycles++
	step := w.step
	if step == 0 {
		step = 15 * time.Minute
	}
	now := t0.Add(time.Hour + time.Duration(w.cycles)*step)
	w.now = now
	w.mu.Unlock()
	o.Now = func() time.Time { return now.Add(p.trackerErr) }
	res, err := pollcycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	w.endRuns()
	w.mu.Lock()
	if w.lockID != "" {
		w.stale = true // the dead poller's lock ages past the stale threshold
	}
	w.mu.Unlock()
	return res.Stats
}

func comment(at time.Duration, text string) poll.Change {
	c := item("P-1", text).Changes[0]
	c.At = t0.Add(at)
	return c
}

// A poller is killed at each point of the delivery contract; a second
// poller (and, when it is killed too, a third) then runs a cycle once the
// lock is stale. Every change gets exactly one run per harness, nothing is
// lost and no lock is left.
func TestCrashAtEachPointDispatchesOnce(t *testing.T) {
	cases := []struct {
		crash     string
		crashB    string // the second poller is killed too
		find      bool
		newChange string // a newer comment arrives before the second poller
		runsA     int    // runs of harness a in the end
		runsB     int    // runs of harness b in the end
		recovered int    // runs the second poller found on the platform
	}{
		{crash: "", find: true, runsA: 1, runsB: 1},
		{crash: "intent", find: true, runsA: 1, runsB: 1},
		{crash: "dispatch", find: true, runsA: 1, runsB: 1, recovered: 2},
		{crash: "record", find: true, runsA: 1, runsB: 1, recovered: 2},
		{crash: "checkpoint", find: true, runsA: 1, runsB: 1},
		{crash: "dispatch", find: true, newChange: "/run both", runsA: 2, runsB: 2},
		// The second poller finds b's run, dispatches a's newer change and
		// dies too: the third must still know about b's run.
		{crash: "dispatch", crashB: "dispatch", find: true, newChange: "/run", runsA: 2, runsB: 1, recovered: 1},
		{crash: "record", crashB: "intent", find: true, newChange: "/run", runsA: 2, runsB: 1, recovered: 1},
		// An output that cannot be asked dispatches again (documented).
		{crash: "dispatch", find: false, runsA: 2, runsB: 2},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s/find=%v/new=%q", tc.crash, tc.crashB, tc.find, tc.newChange), func(t *testing.T) {
			w := &world{check: poll.Checkpoint{At: t0}, changes: []poll.Change{comment(time.Second, "/run both")}}
			w.cycle(t, &poller{w: w, id: "A", crash: tc.crash, find: tc.find})
			if tc.newChange != "" {
				w.changes = append(w.changes, comment(2*time.Second, tc.newChange))
			}
			st := w.cycle(t, &poller{w: w, id: "B", crash: tc.crashB, find: tc.find})
			if st.DispatchesRecovered != tc.recovered {
				t.Errorf("recovered %d, want %d", st.DispatchesRecovered, tc.recovered)
			}
			if tc.crashB != "" {
				w.cycle(t, &poller{w: w, id: "C", find: tc.find})
			}
			perHarness := map[string]int{}
			keys := map[string]int{}
			for _, r := range w.runs {
				perHarness[r.Harness]++
				keys[r.WorkItem.IdempotencyKey]++
			}
			if perHarness["a"] != tc.runsA || perHarness["b"] != tc.runsB {
				t.Errorf("runs per harness %v, want a:%d b:%d", perHarness, tc.runsA, tc.runsB)
			}
			for k, n := range keys {
				if tc.find && (n != 1 || !strings.Contains(k, "@")) {
					t.Errorf("idempotency key %q used by %d runs", k, n)
				}
			}
			last := w.changes[len(w.changes)-1].At
			if !w.check.At.Equal(last) || w.check.Pending() || len(w.check.Intents) > 0 {
				t.Errorf("checkpoint %+v, want %v with no retry and no intent (a change was lost)", w.check, last)
			}
			if w.lockID != "" {
				t.Errorf("lock of %s left", w.lockID)
			}
		})
	}
}

// An intent younger than IntentSettle whose run the platform does not
// list may still be in flight (its poller slowed down past the lock's
// staleness): the item waits, and is dispatched once the intent settled.
func TestRecentIntentWaitsToSettle(t *testing.T) {
	w := &world{check: poll.Checkpoint{At: t0}, changes: []poll.Change{comment(time.Second, "/run both")},
		step: pollcycle.DefaultIntentSettle / 2}
	w.cycle(t, &poller{w: w, id: "A", crash: "intent", find: true})
	w.cycle(t, &poller{w: w, id: "B", find: true})
	if len(w.runs) != 0 || len(w.check.Intents) != 2 {
		t.Fatalf("a young intent: %d runs started, intents %v; want none started and the intents kept", len(w.runs), w.check.Intents)
	}
	w.cycle(t, &poller{w: w, id: "C", find: true}) // the intents are now as old as the settle time
	if len(w.runs) != 2 || len(w.check.Intents) != 0 || !w.check.At.Equal(w.changes[0].At) {
		t.Fatalf("after settling: %d runs, checkpoint %+v; want one run per harness and the change checkpointed", len(w.runs), w.check)
	}
}

// A plan printer prints its plan before the checkpoint: a poller killed
// right after the checkpoint has printed every entry it checkpointed.
func TestPlanPrintedBeforeCheckpoint(t *testing.T) {
	for _, name := range []string{"json", "gha-matrix"} {
		t.Run(name, func(t *testing.T) {
			d := &fakeDriver{Items: []*poll.Item{item("P-1", "/run both")}}
			out, err := jsonout.New(name, printLog{d})
			if err != nil {
				t.Fatal(err)
			}
			o := opts(d, fakeCore{}, nil)
			o.Output = out
			if _, err := pollcycle.Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			want := []string{"lock P-1 0", "print 2 runs", "advance P-1 10:00:01 retry=0"}
			if got := d.Writes(); !slices.Equal(got, want) {
				t.Errorf("writes = %q\nwant     %q", got, want)
			}
		})
	}
}

// A plan that cannot be printed is not checkpointed: the runs count as
// failed, the lock is removed and the next cycle prints them.
func TestPlanPrintFailureKeepsCheckpoint(t *testing.T) {
	d := &fakeDriver{Items: []*poll.Item{item("P-1", "/run")}}
	out, _ := jsonout.New("json", failWriter{})
	o := opts(d, fakeCore{}, nil)
	o.Output = out
	res, err := pollcycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"lock P-1 0", "release P-1"}; !slices.Equal(d.Writes(), want) || res.Stats.DispatchesFailed != 1 {
		t.Errorf("writes = %q failed %d, want %q and 1", d.Writes(), res.Stats.DispatchesFailed, want)
	}
}

type printLog struct{ d *fakeDriver }

func (p printLog) Write(b []byte) (int, error) {
	p.d.Record("print %d runs", bytes.Count(b, []byte(`"agent"`)))
	return len(b), nil
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

// failingFinder is a platform whose lookups fail.
type failingFinder struct{ platform }

func (failingFinder) FindDispatched(context.Context, plan.Run, time.Time) (*plan.Ref, bool, error) {
	return nil, false, errors.New("HTTP 502")
}

// intentFailDriver fails the intent write.
type intentFailDriver struct{ *poller }

func (d intentFailDriver) Advance(ctx context.Context, it *poll.Item, cp poll.Checkpoint) error {
	if len(cp.Intents) > 0 {
		return errors.New("HTTP 503")
	}
	return d.poller.Advance(ctx, it, cp)
}

// When the platform cannot be asked, or the intent cannot be written, the
// item is left for the next cycle: nothing dispatched, checkpoint and
// intents untouched, lock removed.
func TestIntentFailuresLeaveTheItem(t *testing.T) {
	cases := []struct {
		name  string
		setup func(w *world, p *poller) (poll.Driver, output.Driver)
	}{
		{"platform lookup fails", func(w *world, p *poller) (poll.Driver, output.Driver) {
			w.check.Intents = map[string]lastcheck.Intent{"a": {Key: "k", Change: t0.Add(time.Second), TS: t0}}
			return p, failingFinder{platform{p}}
		}},
		{"intent write fails", func(w *world, p *poller) (poll.Driver, output.Driver) {
			return intentFailDriver{p}, finder{platform{p}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &world{check: poll.Checkpoint{At: t0}, changes: []poll.Change{comment(time.Second, "/run both")}}
			d, out := tc.setup(w, &poller{w: w, id: "A"})
			before := w.check.Clone()
			o := opts(d, fakeCore{}, nil)
			o.Output = out
			if _, err := pollcycle.Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			if len(w.runs) != 0 || w.lockID != "" || !w.check.At.Equal(before.At) || len(w.check.Intents) != len(before.Intents) {
				t.Errorf("runs %d lock %q checkpoint %+v, want nothing dispatched, no lock, checkpoint %+v", len(w.runs), w.lockID, w.check, before)
			}
		})
	}
}

// A harness whose dispatch failed keeps its intent in the checkpoint
// (the request may have started the run), the other harness's is cleared.
func TestFailedDispatchKeepsItsIntent(t *testing.T) {
	w := &world{check: poll.Checkpoint{At: t0}, changes: []poll.Change{comment(time.Second, "/run both")}}
	p := &poller{w: w, id: "A"}
	o := opts(p, fakeCore{}, nil)
	o.Output = failB{finder{platform{p}}}
	if _, err := pollcycle.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.check.Intents["b"]; !ok || len(w.check.Intents) != 1 || w.check.Pos("b") != t0 {
		t.Errorf("checkpoint %+v, want b's intent and retry position kept", w.check)
	}
}

// failB fails harness b's runs after starting them (an ambiguous answer).
type failB struct{ finder }

func (o failB) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	res := o.finder.Dispatch(ctx, runs)
	for i := range res {
		if res[i].Run.Harness == "b" {
			res[i].Ref, res[i].Err = nil, errors.New("timeout after sending")
		}
	}
	return res
}

// A poller killed between its dispatch and its checkpoint leaves intents
// whose runs the platform has; when those runs are still queued (no run
// claimed the lock), the next poller takes the lock over, which keeps
// them from starting: it must dispatch the change again instead of
// counting the runs found on the platform.
func TestTakenOverIntentsDispatchAgain(t *testing.T) {
	w := &world{check: poll.Checkpoint{At: t0}, changes: []poll.Change{comment(time.Second, "/run both")}, queued: true, takeover: true}
	w.cycle(t, &poller{w: w, id: "A", crash: "dispatch", find: true})
	if len(w.runs) != 2 {
		t.Fatalf("%d runs dispatched by the killed poller, want 2", len(w.runs))
	}
	st := w.cycle(t, &poller{w: w, id: "B", find: true})
	if st.DispatchesRecovered != 0 || st.DispatchesScheduled != 2 {
		t.Fatalf("stats %+v: want both harnesses dispatched again, none counted as found", st)
	}
	last := w.changes[0].At
	if !w.check.At.Equal(last) || w.check.Pending() || len(w.check.Intents) > 0 {
		t.Errorf("checkpoint %+v, want %v with no retry and no intent", w.check, last)
	}
	if w.lockID != "" {
		t.Errorf("lock of %s left", w.lockID)
	}
}

// The intents a takeover finds may belong to an earlier lock whose runs
// did start: poller A dispatched and died before its checkpoint, its runs
// ran and released A's lock; poller B found them on the platform and died
// before its checkpoint too, leaving its own lock unclaimed. C takes B's
// lock over: the intents were written under A's lock, not B's, so C asks
// the platform, finds the runs and dispatches nothing again.
func TestTakeoverLooksUpIntentsOfEarlierLocks(t *testing.T) {
	w := &world{check: poll.Checkpoint{At: t0}, changes: []poll.Change{comment(time.Second, "/run both")}, takeover: true}
	w.cycle(t, &poller{w: w, id: "A", crash: "dispatch", find: true})
	if len(w.runs) != 2 || w.lockID != "" {
		t.Fatalf("%d runs, lock %q after A: want 2 runs that released A's lock", len(w.runs), w.lockID)
	}
	st := w.cycle(t, &poller{w: w, id: "B", crash: "before checkpoint", find: true})
	if st.DispatchesRecovered != 2 || w.lockID != "B" || len(w.check.Intents) != 2 {
		t.Fatalf("after B: stats %+v, lock %q, intents %v: want both runs found, B's lock and A's intents left", st, w.lockID, w.check.Intents)
	}
	st = w.cycle(t, &poller{w: w, id: "C", find: true})
	if len(w.runs) != 2 || st.DispatchesScheduled != 0 || st.DispatchesRecovered != 2 {
		t.Fatalf("after C: %d runs, stats %+v: want A's 2 runs found again, none dispatched", len(w.runs), st)
	}
}

// An intent whose ts lies in the future (anyone who can edit the item's
// checkpoint can write one) is not believed: it would keep the item out
// of every cycle until that time came. Only what two pollers' estimates
// of the tracker's clock may differ (trackerclock.ClockError) is allowed:
// such an intent is a young one, and waits to settle.
func TestIntentFromTheFutureIsNotBelieved(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ahead time.Duration // the intent's ts after the cycle's now
		runs  int
	}{
		{"an hour ahead", time.Hour, 2},
		{"a year ahead", 365 * 24 * time.Hour, 2},
		{"within the clocks' error", trackerclock.ClockError / 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := t0.Add(time.Hour + 15*time.Minute) // the first cycle's (world.cycle)
			w := &world{changes: []poll.Change{comment(time.Second, "/run both")}, check: poll.Checkpoint{At: t0,
				Intents: map[string]lastcheck.Intent{"a": {Key: "a:P-1@forged", Change: t0.Add(time.Second), TS: now.Add(tc.ahead)}}}}
			st := w.cycle(t, &poller{w: w, id: "A", find: true})
			if len(w.runs) != tc.runs {
				t.Fatalf("%d runs started (stats %+v), want %d", len(w.runs), st, tc.runs)
			}
			if tc.runs > 0 && (len(w.check.Intents) != 0 || !w.check.At.Equal(w.changes[0].At)) {
				t.Errorf("checkpoint %+v, want the change checkpointed and the forged intent gone", w.check)
			}
		})
	}
}
