package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

var testRef = &plan.PollLock{ID: testID, Driver: DriverJiraPoll, Property: testKey}

// lockedStore returns a store holding a fresh dispatched lock with testID.
func lockedStore() *memStore {
	s := newMemStore()
	s.set(testKey, polllock.Lock{ID: testID, TS: time.Now(), Phase: polllock.PhaseDispatched,
		Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}}})
	return s
}

func testSpec(t *testing.T, s LockStore, log *syncio.Buffer, steps ...string) Spec {
	t.Helper()
	var lk *Locker
	if s != nil {
		var err error
		lk, err = NewLocker(s, testRef, 15*time.Minute, plan.Ref{Driver: "gha-dispatch", ID: "42"})
		if err != nil {
			t.Fatal(err)
		}
	}
	var pl *plan.PollLock
	if s != nil {
		pl = testRef
	}
	return Spec{Harness: "triage", Command: agentCmd(t, steps...), Timeout: 10 * time.Second, Grace: 2 * time.Second,
		Event: jiraEvent(), PollLock: pl, Locker: lk, RefreshInterval: time.Hour,
		Getenv: envOf(map[string]string{"PATH": "/usr/bin:/bin"}), TempDir: t.TempDir(), Log: testLogger(log)}
}

func TestRunReleasesLockWhateverTheOutcome(t *testing.T) {
	tests := []struct {
		name     string
		steps    []string
		timeout  time.Duration
		signal   bool
		wantCode int
	}{
		{name: "success", steps: []string{"exit=0"}, wantCode: 0},
		{name: "failure", steps: []string{"exit=5"}, wantCode: 5},
		{name: "timeout", steps: []string{"sleep=20s"}, timeout: 300 * time.Millisecond, wantCode: ExitTimeout},
		{name: "signal", steps: []string{"sleep=20s"}, signal: true, wantCode: 128 + int(syscall.SIGTERM)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log syncio.Buffer
			s := lockedStore()
			ran := filepath.Join(t.TempDir(), "ran")
			spec := testSpec(t, s, &log, append([]string{"touch=" + ran, "out=ready"}, tc.steps...)...)
			out := newReadyWriter()
			spec.Stdout = out
			if tc.timeout > 0 {
				spec.Timeout = tc.timeout
			}
			sigs := make(chan os.Signal, 1)
			spec.Signals = sigs
			if tc.signal {
				go func() { out.wait(t); sigs <- syscall.SIGTERM }()
			}
			res, err := Run(context.Background(), spec)
			code := res.ExitCode
			if err != nil {
				t.Fatal(err)
			}
			if code != tc.wantCode {
				t.Fatalf("exit code %d, want %d\n%s", code, tc.wantCode, log.String())
			}
			// A timed-out agent may be ended before its first step on a
			// loaded machine; every other outcome ran it.
			if _, err := os.Stat(ran); err != nil && tc.timeout == 0 {
				t.Fatal("agent did not run")
			}
			if _, present := s.value(testKey); present || s.count("delete") != 1 {
				t.Fatalf("lock present=%v after the run (deletes %d)", present, s.count("delete"))
			}
			puts := s.puts()
			if len(puts) != 1 {
				t.Fatalf("%d writes, want 1 (mark running)", len(puts))
			}
			l, err := polllock.Parse(puts[0].Value)
			if err != nil || l.Phase != polllock.PhaseRunning || l.ID != testID || len(l.Runs) != 1 || l.Runs[0].ID != "42" {
				t.Fatalf("running lock = %s (%v)", puts[0].Value, err)
			}
		})
	}
}

// runDriven starts Run in the background with refreshes driven by the
// returned ticks channel; puts receives once per lock write the run makes
// (the mark-running write, then each refresh). wait returns Run's outcome.
func runDriven(spec Spec) (ticks chan<- time.Time, puts <-chan struct{}, wait func() (Result, error)) {
	tc := make(chan time.Time)
	spec.RefreshTicks = tc
	ns := &notifyStore{LockStore: spec.Locker.Store, put: make(chan struct{}, 16)}
	spec.Locker.Store = ns
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Run(context.Background(), spec)
		done <- outcome{res, err}
	}()
	return tc, ns.put, func() (Result, error) { o := <-done; return o.res, o.err }
}

// notifyStore signals every successful Put of the store it wraps.
type notifyStore struct {
	LockStore
	put chan struct{}
}

func (n *notifyStore) Put(ctx context.Context, issueKey, property string, raw []byte) error {
	err := n.LockStore.Put(ctx, issueKey, property, raw)
	if err == nil {
		n.put <- struct{}{}
	}
	return err
}

// waitPut waits for the run's next lock write; it fails the test after 10s
// (a safety net for a broken run, not a timing).
func waitPut(t *testing.T, puts <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-puts:
	case <-time.After(10 * time.Second):
		t.Fatalf("no lock write for %s within 10s", what)
	}
}

// Every tick refreshes the lock once (phase running, fresh ts); none
// happens without one; the lock is deleted at the end.
func TestRunRefreshesOnEveryTick(t *testing.T) {
	var log syncio.Buffer
	s := lockedStore()
	release := filepath.Join(t.TempDir(), "release")
	ticks, puts, wait := runDriven(testSpec(t, s, &log, "waitfile="+release))
	waitPut(t, puts, "the lock marked running")
	for want := 2; want <= 5; want++ {
		ticks <- time.Now() // received by the refresher: one refresh follows
		waitPut(t, puts, fmt.Sprintf("refresh %d", want-1))
		if n := len(s.puts()); n != want {
			t.Fatalf("%d writes after %d ticks, want exactly %d", n, want-1, want)
		}
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := wait(); err != nil || res.ExitCode != 0 {
		t.Fatalf("code %d err %v\n%s", res.ExitCode, err, log.String())
	}
	for i, p := range s.puts() {
		l, err := polllock.Parse(p.Value)
		if err != nil || l.Phase != polllock.PhaseRunning {
			t.Fatalf("write %d: %s (%v)", i, p.Value, err)
		}
	}
	if _, present := s.value(testKey); present {
		t.Fatal("lock not deleted")
	}
}

func TestRunLockStolenBeforeStart(t *testing.T) {
	var log syncio.Buffer
	s := newMemStore()
	s.set(testKey, polllock.Lock{ID: "another-poller", TS: time.Now(), Phase: polllock.PhasePending})
	ran := filepath.Join(t.TempDir(), "ran")
	res, err := Run(context.Background(), testSpec(t, s, &log, "touch="+ran))
	code := res.ExitCode
	if !IsLostLock(err) || code != 0 {
		t.Fatalf("code %d err %v, want *LostLockError", code, err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("agent ran without the lock")
	}
	if n := s.count("put") + s.count("delete"); n != 0 {
		t.Fatalf("lock written %d times", n)
	}
}

func TestRunLockStolenDuringRun(t *testing.T) {
	var log syncio.Buffer
	s := lockedStore()
	dir := t.TempDir()
	proceed := filepath.Join(dir, "proceed")
	spec := testSpec(t, s, &log, "out=ready", "waitfile="+proceed, "exit=0")
	ready := newReadyWriter()
	spec.Stdout = ready
	ticks := make(chan time.Time)
	spec.RefreshTicks = ticks
	stolen := watchLog(&log, "taken by another owner")
	spec.Log = testLogger(stolen)
	thief := polllock.Lock{ID: "thief", TS: time.Now(), Phase: polllock.PhasePending}
	thiefDone := make(chan struct{})
	go func() {
		defer close(thiefDone)
		ready.wait(t)
		s.set(testKey, thief)
		ticks <- time.Now() // the refresh after the theft: no refresh races the write
		stolen.until(t, func() {})
		_ = os.WriteFile(proceed, nil, 0o600)
	}()
	res, err := Run(context.Background(), spec)
	<-thiefDone
	code := res.ExitCode
	if err != nil || code != 0 {
		t.Fatalf("code %d err %v", code, err)
	}
	if !strings.Contains(log.String(), "taken by another owner") {
		t.Fatalf("no warning logged:\n%s", log.String())
	}
	raw, present := s.value(testKey)
	if !present || string(raw) != string(thief.Marshal()) || s.count("delete") != 0 {
		t.Fatalf("thief's lock changed: present=%v value=%s deletes=%d", present, raw, s.count("delete"))
	}
}

func TestRunBadInputTouchesNothing(t *testing.T) {
	tests := []struct {
		name    string
		stored  string
		noCmd   bool
		wantErr string
	}{
		{name: "no command", stored: string(polllock.Lock{ID: testID, TS: time.Now(), Phase: polllock.PhaseDispatched}.Marshal()), noCmd: true, wantErr: "no run.command"},
		{name: "corrupt lock property", stored: `{"id":"` + testID + `","ts":"yesterday"}`, wantErr: "corrupt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log syncio.Buffer
			s := newMemStore()
			s.setRaw(testKey, tc.stored)
			ran := filepath.Join(t.TempDir(), "ran")
			spec := testSpec(t, s, &log, "touch="+ran)
			if tc.noCmd {
				spec.Command = nil
			}
			_, err := Run(context.Background(), spec)
			if !IsInput(err) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want input error %q", err, tc.wantErr)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Fatal("agent ran")
			}
			raw, _ := s.value(testKey)
			if string(raw) != tc.stored || s.count("put")+s.count("delete") != 0 {
				t.Fatalf("lock touched: %s", raw)
			}
		})
	}
}

func TestRunAgentEnvironmentAndEventFile(t *testing.T) {
	var log syncio.Buffer
	s := lockedStore()
	dir := t.TempDir()
	envOut, evOut := filepath.Join(dir, "env"), filepath.Join(dir, "event")
	spec := testSpec(t, s, &log, "env="+envOut, "event="+evOut)
	spec.Getenv = envOf(map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/home/ci", "GITHUB_TOKEN": "ghs_x",
		"JIRA_TOKEN": "jt", "MODEL_KEY": "mk"})
	spec.EnvAllow = []string{"MODEL_KEY"}
	if res, err := Run(context.Background(), spec); err != nil || res.ExitCode != 0 {
		t.Fatalf("code %d err %v", res.ExitCode, err)
	}
	got, err := os.ReadFile(envOut)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	var evFile string
	for i, l := range lines {
		if v, ok := strings.CutPrefix(l, EnvEventFile+"="); ok {
			evFile = v
			lines[i] = EnvEventFile + "=<file>"
		}
	}
	want := []string{"FULLSEND_EVENT_FILE=<file>", "FULLSEND_HARNESS=triage",
		"FULLSEND_POLL_LOCK_DRIVER=jira-poll", "FULLSEND_POLL_LOCK_ID=" + testID, "FULLSEND_POLL_LOCK_PROPERTY=" + testKey,
		"FULLSEND_SERIALIZATION_KEY=triage:acme/platform:jira:work_item:10042",
		"FULLSEND_WORK_ITEM_KEY=PROJ-123", "FULLSEND_WORK_ITEM_SOURCE=jira",
		"FULLSEND_WORK_ITEM_URL=https://acme.atlassian.net/browse/PROJ-123",
		"HOME=/home/ci", "ISSUE_NUMBER=", "MODEL_KEY=mk", "PATH=/usr/bin:/bin"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("agent env:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(evFile, spec.TempDir) {
		t.Fatalf("event file %q outside the private temp dir %q", evFile, spec.TempDir)
	}
	if _, err := os.Stat(evFile); !os.IsNotExist(err) {
		t.Fatalf("event file not removed at teardown: %v", err)
	}
	b, err := os.ReadFile(evOut)
	if err != nil {
		t.Fatal(err)
	}
	want2, _ := json.Marshal(jiraEvent())
	if strings.TrimSpace(string(b)) != string(want2) {
		t.Fatalf("event file = %s, want %s", b, want2)
	}
}

func TestEventFileIsPrivate(t *testing.T) {
	ef, err := writeEventFile(t.TempDir(), jiraEvent())
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Remove()
	fi, err := os.Stat(ef.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("event file mode %v (%v), want 0600", fi.Mode(), err)
	}
	di, err := os.Stat(filepath.Dir(ef.Path))
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("event dir mode %v (%v), want 0700", di.Mode(), err)
	}
}

func TestRunWithoutLockAndRefreshOnly(t *testing.T) {
	var log syncio.Buffer
	res, err := Run(context.Background(), testSpec(t, nil, &log, "exit=9"))
	if err != nil || res.ExitCode != 9 {
		t.Fatalf("code %d err %v, want 9", res.ExitCode, err)
	}
	s := lockedStore()
	lk, err := NewLocker(s, testRef, 15*time.Minute, plan.Ref{Driver: "local", ID: "local-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := RefreshOnly(context.Background(), lk); err != nil {
		t.Fatal(err)
	}
	raw, _ := s.value(testKey)
	l, _ := polllock.Parse(raw)
	if l.Phase != polllock.PhaseRunning || len(l.Runs) != 2 || s.count("delete") != 0 {
		t.Fatalf("lock after refresh-only = %s", raw)
	}
}

func TestRunStartFailureReleasesLock(t *testing.T) {
	var log syncio.Buffer
	s := lockedStore()
	spec := testSpec(t, s, &log)
	spec.Command = []string{filepath.Join(t.TempDir(), "missing-agent")}
	_, err := Run(context.Background(), spec)
	if _, ok := err.(*StartError); !ok {
		t.Fatalf("err = %v, want *StartError", err)
	}
	if _, present := s.value(testKey); present {
		t.Fatal("lock left behind without a run")
	}
}

func TestRunLockStoreFailureBeforeStart(t *testing.T) {
	tests := []struct {
		name        string
		failGet     bool
		wantDeleted bool
	}{
		// A failed read changed nothing: the lock stays for its owner's
		// staleness rule. A failed write may have landed: release it.
		{name: "read fails", failGet: true, wantDeleted: false},
		{name: "mark running fails", failGet: false, wantDeleted: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log syncio.Buffer
			s := lockedStore()
			ran := filepath.Join(t.TempDir(), "ran")
			spec := testSpec(t, s, &log, "touch="+ran)
			if tc.failGet {
				s.failGet = errStore
			} else {
				s.failPut = errStore
			}
			_, err := Run(context.Background(), spec)
			if err == nil || IsInput(err) || IsLostLock(err) || !strings.Contains(err.Error(), testIssue) {
				t.Fatalf("err = %v, want a runtime error naming the issue", err)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Fatal("agent ran")
			}
			if _, present := s.value(testKey); present == tc.wantDeleted {
				t.Fatalf("lock present=%v, want deleted=%v", present, tc.wantDeleted)
			}
		})
	}
}

// A SIGTERM that arrives while the lock is verified (CI cancelling the
// job) must not start the agent: the run ends as cancelled and the lock it
// just marked running is released.
func TestRunSignalBeforeStartDoesNotStartTheAgent(t *testing.T) {
	var log syncio.Buffer
	s := lockedStore()
	ran := filepath.Join(t.TempDir(), "ran")
	spec := testSpec(t, s, &log, "touch="+ran)
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM
	spec.Signals = sigs
	_, err := Run(context.Background(), spec)
	if err == nil || IsInput(err) || IsLostLock(err) || !strings.Contains(err.Error(), "before the agent started") {
		t.Fatalf("err = %v, want a cancelled run", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the agent was started after the signal")
	}
	if _, present := s.value(testKey); present {
		t.Fatalf("lock left behind:\n%s", log.String())
	}
}
