package runner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

const (
	testIssue = "PROJ-7"
	testProp  = "fullsend.poll.acme.platform.lock"
	testKey   = testIssue + "/" + testProp
	testID    = "0c4f2a3e-lock"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func testLocker(s LockStore) *Locker {
	return &Locker{Store: s, Issue: testIssue, Property: testProp, ID: testID, StaleThreshold: 15 * time.Minute, PendingTTL: 2 * time.Minute,
		Run: plan.Ref{Driver: "gha-dispatch", ID: "42", URL: "https://github.com/acme/platform/actions/runs/42"},
		Now: func() time.Time { return testNow }, Sleep: func(context.Context, time.Duration) error { return nil }}
}

func TestLockerAcquire(t *testing.T) {
	dispatched := polllock.Lock{ID: testID, TS: testNow.Add(-time.Minute), Phase: polllock.PhaseDispatched,
		Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}, {Driver: "gha-dispatch", ID: "7"}}}
	tests := []struct {
		name      string
		stored    string // raw value; "" = absent
		wantLost  string
		wantInput string
	}{
		{name: "ours and fresh", stored: string(dispatched.Marshal())},
		{name: "absent", wantLost: "gone"},
		{name: "other id", stored: string(polllock.Lock{ID: "other", TS: testNow, Phase: polllock.PhasePending}.Marshal()), wantLost: `held by lock id "other"`},
		{name: "stale but still ours", stored: string(polllock.Lock{ID: testID, TS: testNow.Add(-16 * time.Minute), Phase: polllock.PhaseDispatched, Runs: dispatched.Runs}.Marshal())},
		{name: "corrupt json", stored: `{"id":`, wantInput: "corrupt"},
		{name: "corrupt phase", stored: `{"id":"` + testID + `","ts":"2026-03-01T12:00:00Z","phase":"held"}`, wantInput: "unknown phase"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newMemStore()
			if tc.stored != "" {
				s.setRaw(testKey, tc.stored)
			}
			err := testLocker(s).Acquire(context.Background())
			switch {
			case tc.wantLost != "":
				if !IsLostLock(err) || !strings.Contains(err.Error(), tc.wantLost) {
					t.Fatalf("err = %v, want lost lock %q", err, tc.wantLost)
				}
			case tc.wantInput != "":
				if !IsInput(err) || !strings.Contains(err.Error(), tc.wantInput) || !strings.Contains(err.Error(), testProp) {
					t.Fatalf("err = %v, want input error %q naming the property", err, tc.wantInput)
				}
			case err != nil:
				t.Fatal(err)
			}
			if tc.wantLost != "" || tc.wantInput != "" {
				if n := s.count("put") + s.count("delete"); n != 0 {
					t.Fatalf("lock touched %d times after failed verification", n)
				}
				return
			}
			raw, _ := s.value(testKey)
			got, err := polllock.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if got.Phase != polllock.PhaseRunning || !got.TS.Equal(testNow) || got.ID != testID {
				t.Fatalf("lock after acquire = %+v", got)
			}
			want := []plan.Ref{{Driver: "gha-dispatch", ID: "7"}, {Driver: "gha-dispatch", ID: "42", URL: "https://github.com/acme/platform/actions/runs/42"}}
			if gb, wb := mustJSON(got.Runs), mustJSON(want); gb != wb {
				t.Fatalf("runs = %s, want %s", gb, wb)
			}
		})
	}
}

func TestLockerStoreErrors(t *testing.T) {
	s := newMemStore()
	s.failGet = errStore
	err := testLocker(s).Acquire(context.Background())
	if err == nil || IsLostLock(err) || IsInput(err) || !strings.Contains(err.Error(), testIssue) {
		t.Fatalf("err = %v, want a runtime error naming the issue", err)
	}
	s = newMemStore()
	s.set(testKey, polllock.Lock{ID: testID, TS: testNow, Phase: polllock.PhaseDispatched})
	s.failPut = errStore
	if err := testLocker(s).Acquire(context.Background()); err == nil || IsLostLock(err) || !strings.Contains(err.Error(), "running") {
		t.Fatalf("err = %v, want write error", err)
	}
	ours, _, err := testLocker(s).Refresh(context.Background())
	if err == nil || !ours {
		t.Fatalf("refresh with failing put: ours=%v err=%v, want ours=true and an error", ours, err)
	}
}

func TestLockerRefresh(t *testing.T) {
	tests := []struct {
		name     string
		stored   string
		wantOurs bool
		wantPut  bool
	}{
		{"ours", string(polllock.Lock{ID: testID, TS: testNow.Add(-time.Minute), Phase: polllock.PhaseRunning}.Marshal()), true, true},
		{"ours but stale is reclaimed", string(polllock.Lock{ID: testID, TS: testNow.Add(-time.Hour), Phase: polllock.PhaseRunning}.Marshal()), true, true},
		{"stolen", string(polllock.Lock{ID: "thief", TS: testNow, Phase: polllock.PhasePending}.Marshal()), false, false},
		{"deleted", "", false, false},
		{"corrupted", "[]", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newMemStore()
			if tc.stored != "" {
				s.setRaw(testKey, tc.stored)
			}
			ours, reason, err := testLocker(s).Refresh(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if ours != tc.wantOurs || (!ours && reason == "") {
				t.Fatalf("ours=%v reason=%q, want ours=%v", ours, reason, tc.wantOurs)
			}
			if got := s.count("put") == 1; got != tc.wantPut {
				t.Fatalf("put made = %v, want %v", got, tc.wantPut)
			}
			if tc.wantPut {
				raw, _ := s.value(testKey)
				if l, _ := polllock.Parse(raw); !l.TS.Equal(testNow) || l.ID != testID {
					t.Fatalf("refreshed lock = %s", raw)
				}
			}
		})
	}
}

func TestLockerRelease(t *testing.T) {
	tests := []struct {
		name   string
		stored string
		want   Released
	}{
		{"ours", string(polllock.Lock{ID: testID, TS: testNow, Phase: polllock.PhaseRunning}.Marshal()), ReleaseDeleted},
		{"ours and stale", string(polllock.Lock{ID: testID, TS: testNow.Add(-time.Hour), Phase: polllock.PhaseRunning}.Marshal()), ReleaseDeleted},
		{"ours, only this run", string(polllock.Lock{ID: testID, TS: testNow, Phase: polllock.PhaseRunning,
			Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}}}.Marshal()), ReleaseDeleted},
		{"ours, plan entries only", string(polllock.Lock{ID: testID, TS: testNow, Phase: polllock.PhaseRunning,
			Runs: []plan.Ref{{Driver: "json", ID: "1"}, {Driver: "gha-matrix", ID: "2"}, {Driver: "gha-dispatch", ID: "42"}}}.Marshal()), ReleaseDeleted},
		{"ours and stale, other runs listed", string(polllock.Lock{ID: testID, TS: testNow.Add(-time.Hour), Phase: polllock.PhaseRunning,
			Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}, {Driver: "gha-dispatch", ID: "7"}}}.Marshal()), ReleaseDeleted},
		{"someone else's", string(polllock.Lock{ID: "thief", TS: testNow, Phase: polllock.PhasePending}.Marshal()), ReleaseNotHeld},
		{"someone else's with our run", string(polllock.Lock{ID: "thief", TS: testNow, Phase: polllock.PhaseDispatched,
			Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}, {Driver: "gha-dispatch", ID: "7"}}}.Marshal()), ReleaseNotHeld},
		{"gone", "", ReleaseNotHeld},
		{"corrupt", "nope", ReleaseNotHeld},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newMemStore()
			if tc.stored != "" {
				s.setRaw(testKey, tc.stored)
			}
			got, err := testLocker(s).Release(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			raw, present := s.value(testKey)
			if got != tc.want || present != (tc.stored != "" && tc.want != ReleaseDeleted) {
				t.Fatalf("released=%v present=%v, want %v", got, present, tc.want)
			}
			if tc.want == ReleaseNotHeld && present && string(raw) != tc.stored {
				t.Fatalf("a lock not held was changed from %s to %s", tc.stored, raw)
			}
			if s.count("put") != 0 {
				t.Fatalf("%d writes, want none", s.count("put"))
			}
		})
	}
}

// Two harnesses dispatched in one cycle share the item's lock: the first
// run to end removes only its entry and keeps the lock for the other; the
// last one deletes it.
func TestLockerReleaseSharedLock(t *testing.T) {
	s := newMemStore()
	dispatched := testNow.Add(-time.Minute)
	s.set(testKey, polllock.Lock{ID: testID, TS: dispatched, Phase: polllock.PhaseDispatched,
		Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}, {Driver: "gha-dispatch", ID: "7"}}})
	a, b := testLocker(s), testLocker(s)
	b.Run = plan.Ref{Driver: "gha-dispatch", ID: "7"}
	for _, l := range []*Locker{a, b} {
		if err := l.Acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	later := testNow.Add(2 * time.Minute)
	a.Now = func() time.Time { return later }
	got, err := a.Release(context.Background())
	if err != nil || got != ReleaseKept {
		t.Fatalf("first release = %v, %v; want the lock kept", got, err)
	}
	raw, ok := s.value(testKey)
	l, perr := polllock.Parse(raw)
	if !ok || perr != nil {
		t.Fatalf("lock after the first release: %s (present %v, %v)", raw, ok, perr)
	}
	if l.ID != testID || l.Phase != polllock.PhaseRunning || !l.TS.Equal(later) ||
		mustJSON(l.Runs) != mustJSON([]plan.Ref{{Driver: "gha-dispatch", ID: "7"}}) {
		t.Fatalf("lock after the first release = %s, want id kept, phase running, fresh ts, only run 7", raw)
	}
	// The remaining run still holds it.
	if ours, reason, err := b.Refresh(context.Background()); !ours || err != nil {
		t.Fatalf("the other run's refresh: ours=%v reason=%q err=%v", ours, reason, err)
	}
	// A repeated release of the first run changes nothing it does not own.
	if got, err := a.Release(context.Background()); err != nil || got != ReleaseKept {
		t.Fatalf("repeated release = %v, %v", got, err)
	}
	if raw, _ := s.value(testKey); !strings.Contains(string(raw), `"id":"7"`) {
		t.Fatalf("repeated release dropped the other run: %s", raw)
	}
	got, err = b.Release(context.Background())
	if err != nil || got != ReleaseDeleted {
		t.Fatalf("second release = %v, %v; want the lock deleted", got, err)
	}
	if raw, ok := s.value(testKey); ok {
		t.Fatalf("lock left after the last run: %s", raw)
	}
}

// gha-dispatch may answer 204 without the run id: the poller records
// {"driver":"gha-dispatch"} only. Marking running claims such an entry, so
// that release can remove it.
func TestLockerClaimsEntryWithoutID(t *testing.T) {
	s := newMemStore()
	s.set(testKey, polllock.Lock{ID: testID, TS: testNow, Phase: polllock.PhaseDispatched,
		Runs: []plan.Ref{{Driver: "gha-dispatch"}, {Driver: "gha-dispatch"}, {Driver: "local", ID: "3"}}})
	a, b := testLocker(s), testLocker(s)
	b.Run = plan.Ref{Driver: "gha-dispatch", ID: "43"}
	if err := a.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	runs := func() string {
		raw, _ := s.value(testKey)
		l, err := polllock.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return mustJSON(l.Runs)
	}
	want := mustJSON([]plan.Ref{{Driver: "gha-dispatch"}, {Driver: "local", ID: "3"}, a.Run})
	if got := runs(); got != want {
		t.Fatalf("runs after the first claim = %s, want %s", got, want)
	}
	// Refreshing does not claim a second entry.
	if ours, _, err := a.Refresh(context.Background()); !ours || err != nil {
		t.Fatalf("refresh: %v %v", ours, err)
	}
	if got := runs(); got != want {
		t.Fatalf("runs after refresh = %s, want %s", got, want)
	}
	if err := b.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	want = mustJSON([]plan.Ref{{Driver: "local", ID: "3"}, a.Run, b.Run})
	if got := runs(); got != want {
		t.Fatalf("runs after the second claim = %s, want %s", got, want)
	}
	if got, err := a.Release(context.Background()); err != nil || got != ReleaseKept {
		t.Fatalf("release = %v, %v", got, err)
	}
	want = mustJSON([]plan.Ref{{Driver: "local", ID: "3"}, b.Run})
	if got := runs(); got != want {
		t.Fatalf("runs after release = %s, want %s", got, want)
	}
}

// A run whose claim was never written (its write failed) releases the
// id-less entry it would have claimed, not another run's.
func TestLockerReleaseUnclaimedEntry(t *testing.T) {
	s := newMemStore()
	s.set(testKey, polllock.Lock{ID: testID, TS: testNow, Phase: polllock.PhaseRunning,
		Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "7"}, {Driver: "gha-dispatch"}}})
	if got, err := testLocker(s).Release(context.Background()); err != nil || got != ReleaseKept {
		t.Fatalf("release = %v, %v", got, err)
	}
	raw, _ := s.value(testKey)
	if l, _ := polllock.Parse(raw); mustJSON(l.Runs) != mustJSON([]plan.Ref{{Driver: "gha-dispatch", ID: "7"}}) {
		t.Fatalf("lock after release = %s, want only run 7", raw)
	}
}

func TestLockerReleaseWriteBackFails(t *testing.T) {
	s := newMemStore()
	s.set(testKey, polllock.Lock{ID: testID, TS: testNow, Phase: polllock.PhaseRunning,
		Runs: []plan.Ref{{Driver: "gha-dispatch", ID: "42"}, {Driver: "gha-dispatch", ID: "7"}}})
	s.failPut = errStore
	got, err := testLocker(s).Release(context.Background())
	if err == nil || got != ReleaseNotHeld || !strings.Contains(err.Error(), testIssue) {
		t.Fatalf("release = %v, %v; want an error naming the issue", got, err)
	}
	if s.count("delete") != 0 {
		t.Fatal("lock deleted although another run still holds it")
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// FuzzLockerVerify feeds arbitrary lock property values (outside input read
// from Jira) to the verification: it must classify every value as ours,
// lost or corrupt, and never write.
func FuzzLockerVerify(f *testing.F) {
	for _, s := range []string{
		string(polllock.Lock{ID: testID, TS: testNow, Phase: polllock.PhaseRunning}.Marshal()),
		`{"id":"x","ts":"2026-03-01T12:00:00Z","phase":"pending","runs":[]}`,
		`{"id":"` + testID + `","ts":"2026-03-01T12:00:00Z","phase":"held"}`,
		`null`, `[]`, `"str"`, `{"id":"` + testID + `","ts":"9999-01-01T00:00:00Z","phase":"running"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s := newMemStore()
		s.setRaw(testKey, string(raw))
		l, err := testLocker(s).Verify(context.Background())
		switch {
		case err == nil:
			if l.ID != testID { // however old: a lock no poller took over is still ours
				t.Fatalf("accepted %s as ours: %+v", raw, l)
			}
		case !IsLostLock(err) && !IsInput(err):
			t.Fatalf("unclassified error %v", err)
		}
		if s.count("put")+s.count("delete") != 0 {
			t.Fatal("verification wrote")
		}
	})
}

// A run whose lock went past the pending TTL or stale, but still carries
// its id, claims it, waits polllock.ClaimWait and re-reads: it proceeds
// when the claim held, and is a lost lock when a poller took the lock
// over meanwhile (the poller's write is left as it is). A fresh lock is
// claimed without the wait.
func TestLockerLateClaimIsVerified(t *testing.T) {
	taker := polllock.Lock{ID: "poller-b.9", TS: testNow, Phase: polllock.PhasePending}
	tests := []struct {
		name     string
		age      time.Duration
		phase    string
		takeover bool // a poller writes its lock during the claim's wait
		waits    int
		wantLost bool
	}{
		{name: "fresh", age: 30 * time.Second, phase: polllock.PhasePending},
		{name: "past the pending ttl", age: 5 * time.Minute, phase: polllock.PhasePending, waits: 1},
		// By this run's clock the lock is still within its pending TTL after
		// the wait, but a poller's estimate of Jira's clock may be up to
		// trackerclock.ClockError ahead: it may be taking the lock over.
		{name: "within a clock error of the pending ttl", age: config.DefaultPendingTTL - polllock.ClaimWait - time.Second,
			phase: polllock.PhasePending, waits: 1},
		{name: "stale", age: time.Hour, phase: polllock.PhaseDispatched, waits: 1},
		{name: "claimed and fresh", age: 5 * time.Minute, phase: polllock.PhaseRunning},
		{name: "taken over during the wait", age: time.Hour, phase: polllock.PhasePending, takeover: true, waits: 1, wantLost: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newMemStore()
			s.set(testKey, polllock.Lock{ID: testID, TS: testNow.Add(-tc.age), Phase: tc.phase,
				From: &polllock.Position{TS: testNow.Add(-2 * time.Hour)}})
			l := testLocker(s)
			waits := 0
			l.Sleep = func(_ context.Context, d time.Duration) error {
				if d != polllock.ClaimWait {
					t.Errorf("waited %s, want %s", d, polllock.ClaimWait)
				}
				waits++
				if tc.takeover {
					s.set(testKey, taker)
				}
				return nil
			}
			err := l.Acquire(context.Background())
			if waits != tc.waits {
				t.Errorf("%d waits, want %d", waits, tc.waits)
			}
			if tc.wantLost {
				if !IsLostLock(err) || !strings.Contains(err.Error(), "taken over") {
					t.Fatalf("err = %v, want a lost lock taken over", err)
				}
				if got := s.lock(t, testKey); got.ID != taker.ID {
					t.Fatalf("lock = %+v, want the taker's left alone", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Acquire: %v", err)
			}
			got := s.lock(t, testKey)
			if got.ID != testID || got.Phase != polllock.PhaseRunning || !got.TS.Equal(testNow) {
				t.Fatalf("lock = %+v, want ours, running, written now", got)
			}
		})
	}
}

// A claim that fails on a store error (the run cannot proceed) puts the
// lock back as it was read, unclaimed, instead of leaving a claim that no
// run holds or removing it: a poller then takes it over and dispatches
// the change again. The error is a runtime error, not a lost lock.
func TestLockerFailedClaimPutsTheLockBack(t *testing.T) {
	orig := polllock.Lock{ID: testID, TS: testNow.Add(-time.Minute), Phase: polllock.PhasePending,
		Runs: polllock.Placeholders("gha-dispatch", 1), From: &polllock.Position{TS: testNow.Add(-time.Hour)}}
	s := newMemStore()
	s.set(testKey, orig)
	s.failPuts = 1
	err := testLocker(s).Acquire(context.Background())
	var we *writeError
	if err == nil || IsLostLock(err) || IsInput(err) || errors.As(err, &we) || !strings.Contains(err.Error(), "put back unclaimed") {
		t.Fatalf("err = %v, want a runtime error with the lock put back", err)
	}
	if raw, _ := s.value(testKey); string(raw) != string(orig.Marshal()) {
		t.Fatalf("lock = %s, want it as read: %s", raw, orig.Marshal())
	}
}
