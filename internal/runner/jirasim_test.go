package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// propertyPut is the emulator's call-count key of an issue property write.
const propertyPut = "PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"

// simRun is a run wired through the real Jira client to a Jira emulator
// holding one issue with a fresh dispatched lock carrying testID.
type simRun struct {
	sim   *jirasim.Server
	issue string
	prop  string
	ref   *plan.PollLock
	store JiraStore
	log   syncio.Buffer
}

func newSimRun(t *testing.T) *simRun {
	t.Helper()
	sim := jirasim.New(jirasim.Options{RequiredToken: "test-token"})
	base, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	api, err := jira.New(jira.Options{BaseURL: base, Token: "test-token", MaxRetries: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	issue := sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "runner test"})
	prop, _ := polllock.Keys("acme/platform")
	r := &simRun{sim: sim, issue: issue, prop: prop, store: JiraStore{API: api},
		ref: &plan.PollLock{ID: testID, Driver: DriverJiraPoll, Property: issue + "/" + prop}}
	r.setLock(polllock.Lock{ID: testID, TS: time.Now(), Phase: polllock.PhaseDispatched,
		Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}}})
	return r
}

func (r *simRun) setLock(l polllock.Lock) { r.sim.SetPropertyDirect(r.issue, r.prop, l.Marshal()) }

// lock returns the lock stored in the emulator.
func (r *simRun) lock(t *testing.T) (polllock.Lock, bool) {
	t.Helper()
	raw, ok := r.sim.Property(r.issue, r.prop)
	if !ok {
		return polllock.Lock{}, false
	}
	l, err := polllock.Parse(raw)
	if err != nil {
		t.Errorf("lock in emulator: %v", err)
	}
	return l, true
}

func (r *simRun) spec(t *testing.T, steps ...string) Spec {
	t.Helper()
	lk, err := NewLocker(r.store, r.ref, 15*time.Minute, plan.Ref{Driver: "gha-dispatch", ID: "42"})
	if err != nil {
		t.Fatal(err)
	}
	return Spec{Harness: "triage", Command: agentCmd(t, steps...), Timeout: 10 * time.Second, Grace: 2 * time.Second,
		Event: jiraEvent(), PollLock: r.ref, Locker: lk, RefreshInterval: time.Hour,
		Getenv: envOf(map[string]string{"PATH": "/usr/bin:/bin"}), TempDir: t.TempDir(), Log: testLogger(&r.log)}
}

// The lock in the emulator is marked running, then rewritten once per
// refresh tick (phase running, this run's id), and deleted at the end.
func TestJiraLockVerifiedThenRefreshedOnTicks(t *testing.T) {
	r := newSimRun(t)
	release := filepath.Join(t.TempDir(), "release")
	ticks, puts, wait := runDriven(r.spec(t, "waitfile="+release))
	calls := func() int { return r.sim.Calls()[propertyPut] }
	waitPut(t, puts, "the lock marked running")
	base := calls()
	for i := 1; i <= 4; i++ {
		ticks <- time.Now()
		waitPut(t, puts, fmt.Sprintf("refresh %d", i))
		if n := calls() - base; n != i {
			t.Fatalf("%d lock writes after %d ticks, want %d", n, i, i)
		}
		if l, ok := r.lock(t); !ok || l.Phase != polllock.PhaseRunning || l.ID != testID {
			t.Fatalf("after refresh %d the lock is %+v (present %v), want running with id %s", i, l, ok, testID)
		}
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := wait(); err != nil || res.ExitCode != 0 {
		t.Fatalf("res %+v err %v\n%s", res, err, r.log.String())
	}
	if _, ok := r.lock(t); ok {
		t.Fatal("lock still present after the run")
	}
}
func TestJiraLockDeletedWhateverTheOutcome(t *testing.T) {
	tests := []struct {
		name     string
		steps    []string
		timeout  time.Duration
		signal   os.Signal
		wantCode int
	}{
		{name: "success", steps: []string{"exit=0"}, wantCode: 0},
		{name: "failure", steps: []string{"exit=4"}, wantCode: 4},
		{name: "timeout", steps: []string{"sleep=20s"}, timeout: 300 * time.Millisecond, wantCode: ExitTimeout},
		{name: "sigterm", steps: []string{"sleep=20s"}, signal: syscall.SIGTERM, wantCode: 128 + int(syscall.SIGTERM)},
		{name: "sigint", steps: []string{"sleep=20s"}, signal: syscall.SIGINT, wantCode: 128 + int(syscall.SIGINT)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newSimRun(t)
			ran := filepath.Join(t.TempDir(), "ran")
			spec := r.spec(t, append([]string{"touch=" + ran, "out=ready"}, tc.steps...)...)
			out := newReadyWriter()
			spec.Stdout = out
			if tc.timeout > 0 {
				spec.Timeout = tc.timeout
			}
			sigs := make(chan os.Signal, 1)
			spec.Signals = sigs
			if tc.signal != nil {
				go func() {
					out.wait(t)
					if l, ok := r.lock(t); !ok || l.Phase != polllock.PhaseRunning {
						t.Errorf("lock while the agent runs: %+v present=%v, want phase running", l, ok)
					}
					sigs <- tc.signal
				}()
			}
			res, err := Run(context.Background(), spec)
			if err != nil || res.ExitCode != tc.wantCode {
				t.Fatalf("res %+v err %v, want code %d\n%s", res, err, tc.wantCode, r.log.String())
			}
			// A timed-out agent may be ended before its first step on a
			// loaded machine; every other outcome ran it.
			if _, err := os.Stat(ran); err != nil && tc.timeout == 0 {
				t.Fatal("agent did not run")
			}
			if l, ok := r.lock(t); ok {
				t.Fatalf("lock left behind: %+v", l)
			}
		})
	}
}

func TestJiraLockStolenBeforeStart(t *testing.T) {
	for _, tc := range []struct {
		name string
		lock *polllock.Lock
	}{
		{"other poller", &polllock.Lock{ID: "poller-b", TS: time.Now(), Phase: polllock.PhasePending}},
		{"taken over", &polllock.Lock{ID: "poller-b.1", TS: time.Now().Add(-time.Hour), Phase: polllock.PhaseDispatched}},
		{"deleted", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newSimRun(t)
			if tc.lock != nil {
				r.setLock(*tc.lock)
			} else {
				r.sim.SetPropertyDirect(r.issue, r.prop, nil)
			}
			before, _ := r.sim.Property(r.issue, r.prop)
			ran := filepath.Join(t.TempDir(), "ran")
			_, err := Run(context.Background(), r.spec(t, "touch="+ran))
			if !IsLostLock(err) {
				t.Fatalf("err = %v, want lost lock", err)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Fatal("agent ran without the lock")
			}
			if after, _ := r.sim.Property(r.issue, r.prop); string(after) != string(before) {
				t.Fatalf("lock changed from %s to %s", before, after)
			}
		})
	}
}

func TestJiraLockStolenDuringRun(t *testing.T) {
	r := newSimRun(t)
	dir := t.TempDir()
	proceed := filepath.Join(dir, "proceed")
	spec := r.spec(t, "out=ready", "waitfile="+proceed, "exit=6")
	ready := newReadyWriter()
	spec.Stdout = ready
	ticks := make(chan time.Time)
	spec.RefreshTicks = ticks
	thief := polllock.Lock{ID: "poller-b", TS: time.Now(), Phase: polllock.PhasePending}
	stolen := watchLog(&r.log, "taken by another owner")
	spec.Log = testLogger(stolen)
	thiefDone := make(chan struct{})
	go func() {
		defer close(thiefDone)
		ready.wait(t)
		r.setLock(thief)
		ticks <- time.Now() // the refresh after the theft: no refresh races the write
		stolen.until(t, func() {})
		_ = os.WriteFile(proceed, nil, 0o600)
	}()
	res, err := Run(context.Background(), spec)
	<-thiefDone
	if err != nil || res.ExitCode != 6 {
		t.Fatalf("res %+v err %v, want the agent's code 6", res, err)
	}
	if !strings.Contains(r.log.String(), "level=WARN msg=\"poll lock taken by another owner") {
		t.Fatalf("no warning:\n%s", r.log.String())
	}
	l, ok := r.lock(t)
	if !ok || l.ID != "poller-b" || !l.TS.Equal(thief.TS.UTC().Truncate(time.Millisecond)) {
		t.Fatalf("the other poller's lock was changed: %+v present=%v", l, ok)
	}
}

// Two harnesses dispatched in one cycle share the issue's lock. The run that
// ends first leaves the lock to the other (its own entry removed); the lock
// goes when the last run ends.
func TestJiraSharedLockOutlivesTheFirstRun(t *testing.T) {
	r := newSimRun(t)
	r.setLock(polllock.Lock{ID: testID, TS: time.Now(), Phase: polllock.PhaseDispatched,
		Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}, {Driver: "gha-dispatch", ID: "7"}}})
	dir := t.TempDir()
	proceed := filepath.Join(dir, "proceed")
	long := r.spec(t, "out=ready", "waitfile="+proceed)
	ready := newReadyWriter()
	long.Stdout = ready
	long.Locker.Run = plan.Ref{Driver: "gha-dispatch", ID: "7"}
	done := make(chan error, 1)
	go func() {
		res, err := Run(context.Background(), long)
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("exit code %d", res.ExitCode)
		}
		done <- err
	}()
	ready.wait(t)
	res, err := Run(context.Background(), r.spec(t, "exit=0"))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("first run: res %+v err %v\n%s", res, err, r.log.String())
	}
	l, ok := r.lock(t)
	if !ok || l.ID != testID || l.Phase != polllock.PhaseRunning || len(l.Runs) != 1 || l.Runs[0].ID != "7" {
		t.Fatalf("lock after the first run ended: %+v (present %v), want it kept for run 7\n%s", l, ok, r.log.String())
	}
	if !strings.Contains(r.log.String(), "poll lock kept for other runs") {
		t.Fatalf("no log of the kept lock:\n%s", r.log.String())
	}
	if err := os.WriteFile(proceed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("second run: %v\n%s", err, r.log.String())
	}
	if l, ok := r.lock(t); ok {
		t.Fatalf("lock left after the last run: %+v", l)
	}
}
