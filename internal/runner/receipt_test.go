package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

const testReceipts = testIssue + "/fullsend.poll.acme.platform.receipts"

// entityLockedStore holds a dispatched lock naming the entity version the
// triage harness's run was dispatched for (its second attempt), and the
// tries the poller recorded.
func entityLockedStore(t *testing.T, runs ...plan.Ref) *memStore {
	t.Helper()
	s := newMemStore()
	if len(runs) == 0 {
		runs = []plan.Ref{{Driver: "gha-dispatch", ID: "42"}}
	}
	s.set(testKey, polllock.Lock{ID: testID, TS: time.Now(), Phase: polllock.PhaseDispatched, Runs: runs,
		Entity: map[string]polllock.EntityRun{"triage": {Version: "v1:abc", Attempt: 2}}})
	rs := receipts.Receipts{}
	rs.Tried("triage", "v1:abc", testID, testNow)
	rs.Tried("triage", "v1:abc", testID, testNow)
	rs.Tried("other", "v1:zzz", testID, testNow)
	s.props[testReceipts] = rs.Marshal()
	return s
}

func receiptsOf(t *testing.T, s *memStore) receipts.Receipts {
	t.Helper()
	raw, _ := s.value(testReceipts)
	rs, err := receipts.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// Only a run whose agent succeeded writes a receipt; a failure, a
// timeout or a signal leaves the tries as the poller wrote them, so the
// entity stays due.
func TestRunWritesTheReceiptOnSuccessOnly(t *testing.T) {
	tests := []struct {
		name    string
		steps   []string
		timeout time.Duration
		signal  bool
		receipt bool
	}{
		{name: "success", steps: []string{"exit=0"}, receipt: true},
		{name: "failure", steps: []string{"exit=3"}},
		{name: "timeout", steps: []string{"sleep=20s"}, timeout: 300 * time.Millisecond},
		{name: "signal", steps: []string{"out=ready", "sleep=20s"}, signal: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log syncio.Buffer
			s := entityLockedStore(t)
			spec := testSpec(t, s, &log, tc.steps...)
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
			if _, err := Run(context.Background(), spec); err != nil {
				t.Fatal(err)
			}
			rs := receiptsOf(t, s)
			got := rs["triage"]
			if !tc.receipt {
				if got.Success != nil || got.Tries == nil || got.Tries.Count != 2 {
					t.Fatalf("a run that did not succeed changed the record: %+v\n%s", got, log.String())
				}
				return
			}
			if got.Success == nil || got.Success.Version != "v1:abc" || got.Success.Run != "gha-dispatch/42" ||
				got.Success.Attempts != 2 || got.Success.Outcome != "succeeded" || got.Tries != nil {
				t.Fatalf("receipt %+v\n%s", got, log.String())
			}
			if rs["other"].Tries == nil || rs["other"].Success != nil {
				t.Errorf("another harness's record changed: %+v", rs["other"])
			}
			if _, present := s.value(testKey); present {
				t.Error("the lock must still be released")
			}
			if !strings.Contains(log.String(), "success receipt written") {
				t.Errorf("log:\n%s", log.String())
			}
		})
	}
}

// The receipt is written before the lock is released: a poller that finds
// the lock gone finds the receipt too.
func TestReceiptBeforeRelease(t *testing.T) {
	s := entityLockedStore(t)
	l := testLocker(s)
	if err := l.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	var log syncio.Buffer
	recordSuccess(context.Background(), l, "triage", testLogger(&log))
	if _, present := s.value(testKey); !present {
		t.Fatal("the lock was released by the receipt")
	}
	if !receiptsOf(t, s).Covers("triage", "v1:abc") {
		t.Fatalf("no receipt: %s", log.String())
	}
}

func TestRecordSuccessNothingToRecord(t *testing.T) {
	cases := map[string]func(s *memStore){
		"event-only harness": func(s *memStore) {
			s.set(testKey, polllock.Lock{ID: testID, TS: testNow, Phase: polllock.PhaseRunning, Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}}})
		},
		"lock taken over": func(s *memStore) {
			s.set(testKey, polllock.Lock{ID: "other", TS: testNow, Phase: polllock.PhasePending,
				Entity: map[string]polllock.EntityRun{"triage": {Version: "v1:abc", Attempt: 1}}})
		},
		"lock gone": func(*memStore) {},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			s := newMemStore()
			setup(s)
			_, written, err := testLocker(s).RecordSuccess(context.Background(), "triage")
			if written || err != nil {
				t.Fatalf("written %v, %v", written, err)
			}
			if _, ok := s.value(testReceipts); ok {
				t.Error("a receipt was written")
			}
		})
	}
}

// racingStore plays another run of the same lock that read the receipts
// before this run wrote them and writes its own copy right after: this
// run's receipt is lost once, seen missing after the wait, and written
// again.
type racingStore struct {
	*memStore
	stale []byte // the other run's copy, read before this run's write
	raced bool
}

func (r *racingStore) Put(ctx context.Context, issue, prop string, raw []byte) error {
	err := r.memStore.Put(ctx, issue, prop, raw)
	if !r.raced && issue+"/"+prop == testReceipts {
		r.raced = true
		r.memStore.props[testReceipts] = r.stale
	}
	return err
}

func TestRecordSuccessSharedLockSurvivesARace(t *testing.T) {
	s := entityLockedStore(t, plan.Ref{Driver: "gha-dispatch", ID: "42"}, plan.Ref{Driver: "gha-dispatch", ID: "7"})
	other := receipts.Receipts{}
	other.Succeeded("other", "v1:zzz", "gha-dispatch/7", testNow)
	rs := &racingStore{memStore: s, stale: other.Marshal()}
	l := testLocker(rs)
	var waited []time.Duration
	l.Sleep = func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }
	r, written, err := l.RecordSuccess(context.Background(), "triage")
	if err != nil || !written || r.Version != "v1:abc" {
		t.Fatalf("%+v %v %v", r, written, err)
	}
	got := receiptsOf(t, s)
	if !got.Covers("triage", "v1:abc") || !got.Covers("other", "v1:zzz") {
		t.Fatalf("both receipts must survive: %s", s.props[testReceipts])
	}
	if len(waited) != 2 || waited[0] != polllock.ClaimWaitFor(l.StaleThreshold) {
		t.Errorf("waits %v: one confirmation per write", waited)
	}
	// Alone in its lock, a run writes once and does not wait.
	s2 := entityLockedStore(t)
	l2 := testLocker(s2)
	l2.Sleep = func(context.Context, time.Duration) error { t.Error("a lone run waited"); return nil }
	if _, written, err := l2.RecordSuccess(context.Background(), "triage"); !written || err != nil {
		t.Fatal(written, err)
	}
}

// A scheduled run's agent gets the attribution record the poller put in
// the lock; an event-backed run's does not.
func TestRunHandsTheAttributionToTheAgent(t *testing.T) {
	for _, scheduled := range []bool{true, false} {
		var log syncio.Buffer
		s := entityLockedStore(t)
		if scheduled {
			lk, _ := polllock.Parse(s.props[testKey])
			er := lk.Entity["triage"]
			er.Attribution = &plan.Attribution{Invoker: "jira-poll:p1", Repo: "acme/platform", Harness: "triage",
				Revision: "sha256:ab", Entity: "jira:acme/platform:work_item:10042", Version: "v1:abc", Attempt: 2,
				Elements: []plan.AttributedElement{{Kind: "label", ID: "5", Actor: "dev", Role: "write"}}}
			lk.Entity["triage"] = er
			s.set(testKey, lk)
		}
		envOut := filepath.Join(t.TempDir(), "env")
		if res, err := Run(context.Background(), testSpec(t, s, &log, "env="+envOut)); err != nil || res.ExitCode != 0 {
			t.Fatalf("code %d err %v", res.ExitCode, err)
		}
		got, _ := os.ReadFile(envOut)
		has := strings.Contains(string(got), EnvAttribution+`={"invoker":"jira-poll:p1","repo":"acme/platform"`)
		if has != scheduled || strings.Count(string(got), EnvAttribution+"=") > 1 {
			t.Errorf("scheduled %v: agent env\n%s", scheduled, got)
		}
	}
}

// A receipts property holding a record that cannot be read keeps the
// others: the success of this run's harness is written beside another
// harness's tries and quarantine, and the unreadable record is kept as it
// is (nothing the run cannot read is erased, so no retry is widened). A
// value that is not a receipts object at all is not overwritten.
func TestRecordSuccessKeepsWhatItCannotRead(t *testing.T) {
	quarantined := receipts.Receipts{}
	quarantined.Tried("other", "v1:zzz", testID, testNow)
	quarantined.Quarantined("other", "v1:zzz")
	good := string(quarantined.Marshal())
	const bad = `{"tries":{"version":"v1:yyy","count":"many"}}`
	for _, tc := range []struct {
		name, stored string
		written      bool
	}{
		{"one unreadable record", good[:len(good)-1] + `,"broken":` + bad + `}`, true},
		{"an unreadable record of its own harness", good[:len(good)-1] + `,"triage":` + bad + `}`, true},
		{"not an object", `["receipts"]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := entityLockedStore(t)
			s.setRaw(testReceipts, tc.stored)
			_, written, err := testLocker(s).RecordSuccess(context.Background(), "triage")
			if written != tc.written || (err == nil) != tc.written {
				t.Fatalf("written %v err %v, want written %v", written, err, tc.written)
			}
			raw, _ := s.value(testReceipts)
			if !tc.written {
				if string(raw) != tc.stored {
					t.Errorf("receipts %s, want left as they were", raw)
				}
				return
			}
			rs, _ := receipts.Parse(raw)
			if !rs.Covers("triage", "v1:abc") {
				t.Errorf("no receipt of triage: %s", raw)
			}
			if tr := rs["other"].Tries; tr == nil || !tr.Quarantined || tr.Count != 1 {
				t.Errorf("the other harness's quarantined tries were lost: %s", raw)
			}
			if strings.Contains(tc.stored, `"broken"`) && !strings.Contains(string(raw), `"broken":`+bad) {
				t.Errorf("the unreadable record was not kept as it is: %s", raw)
			}
		})
	}
}
