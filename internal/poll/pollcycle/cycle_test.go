package pollcycle_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/output/jsonout"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func opts(d poll.Driver, c poll.Decider, o *fakeOut) pollcycle.Options {
	return pollcycle.Options{Driver: d, Core: c, Output: o, JitterMax: -1, Rand: rand.New(rand.NewPCG(1, 1))}
}

func TestCycleOutcomes(t *testing.T) {
	cases := []struct {
		name     string
		items    []*poll.Item
		core     fakeCore
		out      *fakeOut
		lose     []string
		want     []string // driver writes, in order per item
		runs     int
		matched  int
		coalesce int
	}{
		{name: "newest run per harness; the lock lists both runs (no record), then checkpoint",
			items: []*poll.Item{item("P-1", "/run one", "/run both", "/run three")},
			want:  []string{"lock P-1 2", "advance P-1 10:00:03 retry=0"},
			runs:  2, matched: 4, coalesce: 2},
		{name: "no match advances and releases",
			items: []*poll.Item{item("P-1", "hello")},
			want:  []string{"lock P-1 0", "advance P-1 10:00:01 retry=0", "release P-1"}},
		{name: "every run failed: release, checkpoint untouched",
			items: []*poll.Item{item("P-1", "/run both")},
			out:   &fakeOut{Fail: map[string]bool{"a": true, "b": true}},
			want:  []string{"lock P-1 2", "release P-1"}, matched: 2},
		{name: "one harness failed: the lock is corrected to the one run, retry position kept for the other",
			items: []*poll.Item{item("P-1", "/run both")},
			out:   &fakeOut{Fail: map[string]bool{"b": true}},
			want:  []string{"lock P-1 2", "dispatched P-1 1", "advance P-1 10:00:01 retry=1"}, runs: 1, matched: 2},
		{name: "missing output result counts as failed",
			items: []*poll.Item{item("P-1", "/run both")},
			out:   &fakeOut{Short: true},
			want:  []string{"lock P-1 2", "dispatched P-1 1", "advance P-1 10:00:01 retry=1"}, runs: 2, matched: 2},
		{name: "kill switch leaves the checkpoint",
			items: []*poll.Item{item("P-1", "/run")},
			core:  fakeCore{killed: true},
			want:  []string{"lock P-1 0", "release P-1"}},
		{name: "circuit breaker skip defers: checkpoint held, lock released",
			items: []*poll.Item{item("P-1", "/run")},
			core:  fakeCore{skip: true},
			want:  []string{"lock P-1 1", "release P-1"}, matched: 1},
		{name: "lost lock: hands off",
			items: []*poll.Item{item("P-1", "/run")},
			lose:  []string{"P-1"},
			want:  []string{"lock P-1 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.out == nil {
				tc.out = &fakeOut{}
			}
			lose := map[string]bool{}
			for _, l := range tc.lose {
				lose[l] = true
			}
			d := &fakeDriver{Items: tc.items, Lose: lose}
			res, err := pollcycle.Run(context.Background(), opts(d, tc.core, tc.out))
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Writes(); !slices.Equal(got, tc.want) {
				t.Errorf("writes = %q\nwant     %q", got, tc.want)
			}
			st := res.Stats
			if len(tc.out.Runs) != tc.runs || st.RunsMatched != tc.matched || st.RunsCoalesced != tc.coalesce {
				t.Errorf("runs %d matched %d coalesced %d, want %d %d %d",
					len(tc.out.Runs), st.RunsMatched, st.RunsCoalesced, tc.runs, tc.matched, tc.coalesce)
			}
			for _, r := range tc.out.Runs {
				if r.PollLock == nil || r.PollLock.Property != "P-1" {
					t.Errorf("run without its poll lock: %+v", r.PollLock)
				}
			}
		})
	}
}

// The json and gha-matrix output drivers print a plan and start no runs:
// the lock is left as written, without run references, so that the
// `fullsend run` of whoever consumes the plan deletes it when it ends
// instead of keeping it for runs that do not exist.
func TestPlanOutputRecordsNoRuns(t *testing.T) {
	for _, name := range []string{"json", "gha-matrix"} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			out, err := jsonout.New(name, &buf)
			if err != nil {
				t.Fatal(err)
			}
			d := &fakeDriver{Items: []*poll.Item{item("P-1", "/run both")}}
			o := opts(d, fakeCore{}, nil)
			o.Output = out
			res, err := pollcycle.Run(context.Background(), o)
			if err != nil || res.Stats.DispatchesScheduled != 2 {
				t.Fatalf("err = %v, stats %+v", err, res.Stats)
			}
			want := []string{"lock P-1 0", "advance P-1 10:00:01 retry=0"}
			if got := d.Writes(); !slices.Equal(got, want) {
				t.Errorf("writes = %q\nwant     %q", got, want)
			}
			if err := out.Close(context.Background()); err != nil || !strings.Contains(buf.String(), `"agent":"b"`) {
				t.Fatalf("plan %s (%v), want both runs", buf.String(), err)
			}
		})
	}
}

// A harness with a retry position gets only the changes after it; the
// others only changes after the checkpoint.
func TestRetryPositionFiltersPerHarness(t *testing.T) {
	it := item("P-1", "/run both", "/run")
	it.Base = poll.Checkpoint{At: t0.Add(time.Second), Retry: map[string]time.Time{"b": t0}}
	out := &fakeOut{}
	d := &fakeDriver{Items: []*poll.Item{it}}
	if _, err := pollcycle.Run(context.Background(), opts(d, fakeCore{}, out)); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range out.Runs {
		got[r.Harness] = r.Event.Transition.Comment.Body
	}
	if len(got) != 2 || got["a"] != "/run" || got["b"] != "/run both" {
		t.Errorf("runs = %v, want a:/run (newer than the checkpoint) and b:/run both (its retry)", got)
	}
}

// A stop request during the jitter rolls back every lock, dispatches
// nothing and is not an error.
func TestStopDuringJitterRollsBack(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d := &fakeDriver{Items: []*poll.Item{item("P-1", "/run"), item("P-2", "/run")}, Locked: make(chan struct{})}
	go func() { <-d.Locked; cancel() }()
	out := &fakeOut{}
	o := opts(d, fakeCore{}, out)
	o.JitterMin, o.JitterMax = time.Minute, time.Minute
	res, err := pollcycle.Run(ctx, o)
	if err != nil || !res.Stats.Interrupted {
		t.Fatalf("err = %v interrupted = %v", err, res.Stats.Interrupted)
	}
	w := d.Writes()
	slices.Sort(w)
	if want := []string{"lock P-1 1", "lock P-2 1", "release P-1", "release P-2"}; !slices.Equal(w, want) {
		t.Errorf("writes = %q, want %q", w, want)
	}
	if len(out.Runs) != 0 {
		t.Errorf("dispatched %d runs after a stop request", len(out.Runs))
	}
}

func TestCycleLogAndObserver(t *testing.T) {
	var buf bytes.Buffer
	var seen []poll.CycleStats
	d := &fakeDriver{Items: []*poll.Item{item("P-1", "/run")}}
	o := opts(d, fakeCore{}, &fakeOut{})
	o.Log = slog.New(slog.NewJSONHandler(&buf, nil))
	o.Observer = func(s poll.CycleStats) { seen = append(seen, s) }
	if _, err := pollcycle.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].DispatchesScheduled != 1 || seen[0].CycleID == "" {
		t.Fatalf("observer saw %+v", seen)
	}
	var rec map[string]any
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"cycle_id", "driver", "candidates", "eligible", "locks_attempted", "locks_acquired",
		"locks_lost", "locks_stale_removed", "events", "runs_matched", "runs_coalesced", "dispatches_scheduled",
		"dispatches_failed", "api_calls", "rate_limit_waits", "duration_ms"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("cycle record lacks %q: %v", k, rec)
		}
	}
	if rec["msg"] != "poll cycle" || rec["dispatches_scheduled"] != float64(1) {
		t.Errorf("record = %v", rec)
	}
}

type failingDriver struct{ *fakeDriver }

func (*failingDriver) Discover(context.Context) (*poll.Discovery, error) {
	return nil, errors.New("search: HTTP 503")
}

func TestDiscoveryFailureIsACycleError(t *testing.T) {
	res, err := pollcycle.Run(context.Background(), opts(&failingDriver{&fakeDriver{}}, fakeCore{}, &fakeOut{}))
	if err == nil || !strings.Contains(err.Error(), "fake-poll discovery") || res.Stats.Error == "" {
		t.Errorf("err = %v, stats error %q", err, res.Stats.Error)
	}
}

// lockFailDriver's lock write on failLock items fails after it was sent:
// its outcome is unknown, so the lock may be on the item.
type lockFailDriver struct {
	*fakeDriver
	failLock map[string]bool
}

func (f *lockFailDriver) Acquire(_ context.Context, items []*poll.Item) error {
	for _, it := range items {
		it.Attempt()
		f.Record("lock %s", it.ID)
		if f.failLock[it.ID] {
			it.Fail(errors.New("writing the poll lock: timeout"))
			continue
		}
		it.Hold()
	}
	return nil
}

// A lock write that failed after it was sent may still have landed: the
// cycle removes it (where it holds this poller's id) instead of leaving a
// lock without a run until it goes stale.
func TestFailedLockWriteIsRolledBack(t *testing.T) {
	fd := &fakeDriver{Items: []*poll.Item{item("P-1", "/run"), item("P-2", "/run")}}
	d := &lockFailDriver{fakeDriver: fd, failLock: map[string]bool{"P-2": true}}
	out := &fakeOut{}
	res, err := pollcycle.Run(context.Background(), opts(d, fakeCore{}, out))
	if !errors.Is(err, poll.ErrItemsFailed) { // the failed item fails the cycle (exit 1)
		t.Fatalf("err = %v, want ErrItemsFailed", err)
	}
	if !slices.Contains(fd.Writes(), "release P-2") {
		t.Errorf("writes = %q: the failed lock write on P-2 was not rolled back", fd.Writes())
	}
	if len(out.Runs) != 1 || res.Stats.ItemsFailed != 1 {
		t.Errorf("runs %d items_failed %d, want 1 and 1", len(out.Runs), res.Stats.ItemsFailed)
	}
}

// Every scheduled dispatch reports the time from the change it is for
// (the newest one, when several coalesced) to the dispatch; failed
// dispatches report none.
func TestDispatchLatencies(t *testing.T) {
	d := &fakeDriver{Items: []*poll.Item{item("P-1", "/run both"), item("P-2", "/run", "/run")}}
	o := opts(d, fakeCore{}, &fakeOut{Fail: map[string]bool{"b": true}})
	o.Now = func() time.Time { return t0.Add(time.Minute) }
	res, _ := pollcycle.Run(context.Background(), o)
	got := slices.Sorted(slices.Values(res.Stats.DispatchLatencies))
	if want := []time.Duration{58 * time.Second, 59 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("latencies = %v, want %v (stats %+v)", got, want, res.Stats)
	}
}

// endedOut is a fakeOut that reports whether its runs have ended
// (poll.RunTracker), as the local executor does.
type endedOut struct {
	*fakeOut
	ended bool
}

func (o endedOut) Ended(plan.Ref) bool { return o.ended }

// TestReleaseLockOfEndedRuns: when every run of an item ended before the
// record step, the lock the record may have brought back is removed; while
// a run is still going, the lock stays for it to release. (There is a
// record step only when the runs started do not fit the lock: here one
// of two failed.)
func TestReleaseLockOfEndedRuns(t *testing.T) {
	for _, ended := range []bool{false, true} {
		d := &fakeDriver{Items: []*poll.Item{item("P-1", "/run both")}}
		o := opts(d, fakeCore{}, nil)
		o.Output = endedOut{&fakeOut{Fail: map[string]bool{"b": true}}, ended}
		if _, err := pollcycle.Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		w := d.Writes()
		rec, rel := slices.Index(w, "dispatched P-1 1"), slices.Index(w, "release P-1")
		if rec < 0 {
			t.Fatalf("ended=%v: no record step in %v", ended, w)
		}
		if ended != (rel > rec) {
			t.Errorf("ended=%v: writes %v; want a release after the record only when the runs ended", ended, w)
		}
	}
}

// A cycle that takes over a lock no run claimed waits at least
// polllock.ClaimWait before verifying, as long as a late run waits after
// its claim: of the two writers, one sees the other.
func TestTakeoverWaitsTheClaimWait(t *testing.T) {
	for _, takenOver := range []bool{false, true} {
		it := item("P-1", "/run one")
		it.TakenOver = takenOver
		o := opts(&fakeDriver{Items: []*poll.Item{it}}, fakeCore{}, &fakeOut{})
		o.JitterMin, o.JitterMax = 10*time.Millisecond, 20*time.Millisecond
		var waits []time.Duration
		o.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
		if _, err := pollcycle.Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if len(waits) != 1 || (waits[0] >= polllock.ClaimWait) != takenOver {
			t.Errorf("taken over %v: waits %v, want one, of at least %s only after a takeover", takenOver, waits, polllock.ClaimWait)
		}
	}
}
