package reconcile

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestDecide(t *testing.T) {
	pol := Policy{Max: 3, Backoff: time.Minute}
	success := func(v string) *receipts.Receipt {
		return &receipts.Receipt{Version: v, At: t0, Run: "gha-dispatch/7", Outcome: receipts.OutcomeSucceeded, Attempts: 1}
	}
	tries := func(v string, n int, at time.Time) *receipts.Tries {
		return &receipts.Tries{Version: v, Count: n, At: at, Lock: "p.1"}
	}
	cases := []struct {
		name    string
		rec     receipts.HarnessRecord
		active  bool
		now     time.Time
		want    State
		attempt int
		reason  string
	}{
		{"no record", receipts.HarnessRecord{}, false, t0, Due, 1, "no successful run covers version v2"},
		{"receipt covers the version", receipts.HarnessRecord{Success: success("v2")}, false, t0, Handled, 0, "gha-dispatch/7"},
		{"receipt covers even while active", receipts.HarnessRecord{Success: success("v2")}, true, t0, Handled, 0, ""},
		{"receipt of an older version", receipts.HarnessRecord{Success: success("v1")}, false, t0, Due, 1, ""},
		{"a run is active", receipts.HarnessRecord{}, true, t0, Active, 0, "active or pending"},
		{"a try is active", receipts.HarnessRecord{Tries: tries("v2", 1, t0)}, true, t0.Add(time.Hour), Active, 0, ""},
		{"first try ended, within backoff", receipts.HarnessRecord{Tries: tries("v2", 1, t0)}, false, t0.Add(59 * time.Second), Backoff, 2, "retry 1 waits"},
		{"first try ended, backoff over", receipts.HarnessRecord{Tries: tries("v2", 1, t0)}, false, t0.Add(time.Minute), Due, 2, "retry 1 of 3"},
		{"second try, backoff doubled", receipts.HarnessRecord{Tries: tries("v2", 2, t0)}, false, t0.Add(119 * time.Second), Backoff, 3, ""},
		{"second try, doubled backoff over", receipts.HarnessRecord{Tries: tries("v2", 2, t0)}, false, t0.Add(2 * time.Minute), Due, 3, "retry 2 of 3"},
		{"third try, quadrupled backoff over", receipts.HarnessRecord{Tries: tries("v2", 3, t0)}, false, t0.Add(4 * time.Minute), Due, 4, "retry 3 of 3"},
		{"max retries spent", receipts.HarnessRecord{Tries: tries("v2", 4, t0)}, false, t0.Add(time.Hour), GiveUp, 4, "4 runs of version v2 ended without success (entity.retry.max 3)"},
		{"already quarantined", receipts.HarnessRecord{Tries: &receipts.Tries{Version: "v2", Count: 4, At: t0, Quarantined: true}}, false, t0.Add(time.Hour), Quarantined, 4, ""},
		{"tries of an older version", receipts.HarnessRecord{Tries: &receipts.Tries{Version: "v1", Count: 4, At: t0, Quarantined: true}}, false, t0, Due, 1, ""},
		{"success then failing tries of a new version", receipts.HarnessRecord{Success: success("v1"), Tries: tries("v2", 1, t0)}, false, t0, Backoff, 2, ""},
		// a try's time from the future would hold the retry back until it came
		{"a try from the future", receipts.HarnessRecord{Tries: tries("v2", 1, t0.Add(365*24*time.Hour))}, false, t0, Due, 2, "lies in the future"},
		{"a try within the clocks' error", receipts.HarnessRecord{Tries: tries("v2", 1, t0.Add(trackerclock.ClockError))}, false, t0, Backoff, 2, ""},
		{"max retries spent, from the future", receipts.HarnessRecord{Tries: tries("v2", 4, t0.Add(time.Hour))}, false, t0, GiveUp, 4, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(Input{Version: "v2", Record: tc.rec, Active: tc.active, Now: tc.now, Policy: pol})
			if d.State != tc.want || d.Attempt != tc.attempt || !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("got %+v, want %s attempt %d reason containing %q", d, tc.want, tc.attempt, tc.reason)
			}
			if d.State == Backoff && !d.NotBefore.After(tc.now) {
				t.Errorf("a backoff must end after now: %v", d.NotBefore)
			}
		})
	}
}

func TestDecideWithoutRetries(t *testing.T) {
	rec := receipts.HarnessRecord{Tries: &receipts.Tries{Version: "v", Count: 1, At: t0}}
	if d := Decide(Input{Version: "v", Record: rec, Now: t0.Add(time.Hour), Policy: Policy{Max: 0, Backoff: time.Second}}); d.State != GiveUp {
		t.Errorf("max 0 gives up after the first run: %+v", d)
	}
}

// TestRetriesFollowTheClock plays the rule over a failing entity with an
// injected clock: the runs happen at the backoff's doublings, at most
// 1+max of them, then the version is given up on.
func TestRetriesFollowTheClock(t *testing.T) {
	clk := fakeclock.New(t0)
	pol := Policy{Max: 3, Backoff: time.Second}
	rec := receipts.Receipts{}
	var runs []time.Duration
	for range 600 { // ten minutes in one-second cycles
		now := clk.Now()
		d := Decide(Input{Version: "v", Record: rec["h"], Now: now, Policy: pol})
		switch d.State {
		case Due:
			if n := rec.Tried("h", "v", "lock", now); n != d.Attempt {
				t.Fatalf("attempt %d recorded as %d", d.Attempt, n)
			}
			runs = append(runs, now.Sub(t0))
		case GiveUp:
			rec.Quarantined("h", "v")
		}
		clk.Advance(time.Second)
	}
	want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second}
	if len(runs) != len(want) {
		t.Fatalf("runs at %v, want %v", runs, want)
	}
	for i := range want {
		if runs[i] != want[i] {
			t.Fatalf("runs at %v, want %v", runs, want)
		}
	}
	if d := Decide(Input{Version: "v", Record: rec["h"], Now: clk.Now(), Policy: pol}); d.State != Quarantined {
		t.Errorf("after giving up: %+v", d)
	}
	rec.Succeeded("h", "v2", "gha-dispatch/9", clk.Now())
	if d := Decide(Input{Version: "v2", Record: rec["h"], Now: clk.Now(), Policy: pol}); d.State != Handled {
		t.Errorf("a new version's success: %+v", d)
	}
}

func TestBackoffAfter(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{{1, time.Minute}, {2, 2 * time.Minute}, {3, 4 * time.Minute}, {0, time.Minute}, {40, 7 * 24 * time.Hour}} {
		if got := BackoffAfter(time.Minute, tc.n); got != tc.want {
			t.Errorf("BackoffAfter(1m, %d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

func TestExposed(t *testing.T) {
	if Exposed(receipts.HarnessRecord{Tries: &receipts.Tries{Version: "v", Count: 2}}) != nil {
		t.Error("tries alone are no receipt")
	}
	rec := receipts.Receipts{}
	rec.Tried("h", "v", "l", t0)
	rec.Tried("h", "v", "l", t0)
	rec.Succeeded("h", "v", "gha-dispatch/3", t0.Add(time.Minute))
	got := Exposed(rec["h"])
	if got == nil || got.Version != "v" || got.Run != "gha-dispatch/3" || got.Outcome != "succeeded" || got.Attempts != 2 || !got.At.Equal(t0.Add(time.Minute)) {
		t.Errorf("got %+v", got)
	}
}

func TestCadence(t *testing.T) {
	var c Cadence
	clk := fakeclock.New(t0)
	if !c.Due("h", time.Hour, clk.Now()) || !c.Due("every-cycle", 0, clk.Now()) {
		t.Fatal("a harness never evaluated is due")
	}
	c.Done("h", time.Hour, clk.Now())
	c.Done("every-cycle", 0, clk.Now())
	clk.Advance(59 * time.Minute)
	if c.Due("h", time.Hour, clk.Now()) || !c.Due("every-cycle", 0, clk.Now()) {
		t.Error("within every: not due; every 0: always due")
	}
	clk.Advance(time.Minute)
	if !c.Due("h", time.Hour, clk.Now()) {
		t.Error("every elapsed: due")
	}
	if !c.Due("h", time.Hour, t0.Add(-time.Second)) {
		t.Error("a clock that went back must not stall the harness")
	}
}

// TestCadenceSnapshot: a saved cadence holds back, in a new Cadence, what
// the old one did; it keeps only the entries whose every has not
// elapsed, at most MaxSavedCadence of them, the newest; a restored entry
// with no key or no every is ignored.
func TestCadenceSnapshot(t *testing.T) {
	clk := fakeclock.New(t0)
	var c Cadence
	c.Done("hour", time.Hour, clk.Now())
	c.Done("minute", time.Minute, clk.Now())
	c.Done("always", 0, clk.Now())
	clk.Advance(2 * time.Minute)
	snap := c.Snapshot(clk.Now())
	if len(snap) != 1 || snap[0].Key != "hour" || snap[0].Every != time.Hour || !snap[0].At.Equal(t0) {
		t.Fatalf("snapshot %+v, want only the hour's entry", snap)
	}
	var fresh Cadence
	fresh.Restore(append(snap, CadenceEntry{Key: "", Every: time.Hour, At: t0}, CadenceEntry{Key: "zero", At: clk.Now()}))
	if fresh.Due("hour", time.Hour, clk.Now()) || !fresh.Due("minute", time.Minute, clk.Now()) || !fresh.Due("zero", time.Hour, clk.Now()) {
		t.Fatal("restored: the hour's entry must hold back, the others not")
	}
	if !fresh.Due("hour", time.Hour, t0.Add(time.Hour)) {
		t.Fatal("restored: due once its every elapsed")
	}
	var big Cadence
	for i := range MaxSavedCadence + 5 {
		big.Done(CadenceKey("h", fmt.Sprint(i)), time.Hour, t0.Add(time.Duration(i)*time.Millisecond))
	}
	snap = big.Snapshot(t0.Add(time.Minute))
	if len(snap) != MaxSavedCadence || snap[0].Key != CadenceKey("h", fmt.Sprint(MaxSavedCadence+4)) || snap[len(snap)-1].Key != CadenceKey("h", "5") {
		t.Fatalf("capped snapshot: %d entries from %q to %q, want the newest %d", len(snap), snap[0].Key, snap[len(snap)-1].Key, MaxSavedCadence)
	}
}
