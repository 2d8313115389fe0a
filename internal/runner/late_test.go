package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// A run that starts 6 s after its dispatch, with stale_threshold 4s, finds
// its lock stale by age but still carrying its id (no poller took it
// over): it claims it, confirms the claim after polllock.ClaimWait on the
// clock, starts the agent and releases the lock at the end.
func TestRunLateStartsTheAgent(t *testing.T) {
	dispatched := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := fakeclock.New(dispatched.Add(6 * time.Second))
	s := newMemStore()
	s.set(testKey, polllock.Lock{ID: testID, TS: dispatched, Phase: polllock.PhasePending,
		Runs: polllock.Placeholders("gha-dispatch", 1), From: &polllock.Position{TS: dispatched.Add(-time.Hour)}})
	var log syncio.Buffer
	ran := filepath.Join(t.TempDir(), "ran")
	spec := testSpec(t, s, &log, "touch="+ran)
	lk, err := NewLocker(s, testRef, 4*time.Second, plan.Ref{Driver: "gha-dispatch", ID: "42"})
	if err != nil {
		t.Fatal(err)
	}
	lk.Now, lk.Sleep = clk.Now, clk.Sleep
	spec.Locker = lk
	res, err := Run(context.Background(), spec)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("code %d err %v, want the agent run (log: %s)", res.ExitCode, err, log.String())
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatal("agent did not start")
	}
	if got, want := clk.Now().Sub(dispatched), 6*time.Second+polllock.ClaimWaitFor(4*time.Second); got != want {
		t.Errorf("clock moved to +%s, want +%s (one claim wait)", got, want)
	}
	if n := s.count("put"); n != 1 {
		t.Errorf("%d lock writes before the release, want 1 (the claim)", n)
	}
	if _, ok := s.value(testKey); ok {
		t.Error("lock left after the run")
	}
}
