package local

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

func TestMain(m *testing.M) {
	if helperMain() {
		return
	}
	goleak.VerifyTestMain(m)
}

// mkRun builds a run of harness for work item id, with a comment that
// makes events of the same key distinguishable.
func mkRun(harness string, id int64, comment string) plan.Run {
	ev := &event.Event{
		Repo:       "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: id, Key: "PROJ-" + strconv.FormatInt(id, 10), URL: "https://acme.example/browse/PROJ-1"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: comment}},
		Actor:      event.Actor{ID: "u1", Kind: event.ActorHuman, Role: "write"},
		State:      event.State{Labels: []string{}},
		Source:     event.Source{System: event.SystemJira, RawType: "comment"},
	}
	return plan.Run{Harness: harness, Role: harness, Event: ev, Key: scope.KeyOf(harness, ev, ""),
		WorkItem: plan.WorkItemOf(ev)}
}

// fakeLauncher announces every launch and blocks it until told to end.
type fakeLauncher struct{ started chan launch }

type launch struct {
	job Job
	end chan error
}

func (f *fakeLauncher) Launch(ctx context.Context, job Job) error {
	l := launch{job: job, end: make(chan error, 1)}
	f.started <- l
	select {
	case err := <-l.end:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fakeLauncher) next(t *testing.T) launch {
	t.Helper()
	select {
	case l := <-f.started:
		return l
	case <-time.After(5 * time.Second):
		t.Fatal("no launch within 5s")
	}
	return launch{}
}

func newFakeDriver(t *testing.T, maxPar int, grace time.Duration) (*Driver, *fakeLauncher) {
	return newFakeDriverAfter(t, maxPar, grace, nil)
}

// newFakeDriverAfter is newFakeDriver with the clock after (nil: real).
func newFakeDriverAfter(t *testing.T, maxPar int, grace time.Duration, after func(time.Duration) <-chan time.Time) (*Driver, *fakeLauncher) {
	t.Helper()
	f := &fakeLauncher{started: make(chan launch, 16)}
	d, err := New(Options{MaxParallel: maxPar, Grace: grace, KillDelay: 50 * time.Millisecond, Launcher: f, After: after})
	if err != nil {
		t.Fatal(err)
	}
	return d, f
}

func TestDispatchCoalescesPerKeyAndRunsKeysInParallel(t *testing.T) {
	d, f := newFakeDriver(t, 2, time.Second)
	ctx := context.Background()
	res := d.Dispatch(ctx, []plan.Run{mkRun("triage", 1, "first")})
	if res[0].Err != nil || res[0].Ref == nil || *res[0].Ref != (plan.Ref{Driver: "local", ID: "1"}) {
		t.Fatalf("result = %+v", res[0])
	}
	first := f.next(t)
	// A burst on the active key, and one event for another key.
	var burst []plan.Run
	for i := 0; i < 5; i++ {
		burst = append(burst, mkRun("triage", 1, fmt.Sprintf("burst %d", i)))
	}
	burst = append(burst, mkRun("code", 1, "other harness"))
	for i, r := range d.Dispatch(ctx, burst) {
		if r.Err != nil || r.Ref == nil || r.Ref.ID != strconv.Itoa(i+2) {
			t.Fatalf("burst result %d = %+v (err %v)", i, r.Ref, r.Err)
		}
	}
	other := f.next(t) // runs while "first" is still active
	if other.job.Run.Harness != "code" {
		t.Fatalf("parallel run = %s, want code", other.job.Run.Harness)
	}
	first.end <- errors.New("agent failed") // the pending run still starts
	follow := f.next(t)
	if got := follow.job.Run.Event.Transition.Comment.Body; got != "burst 4" || follow.job.Seq != 6 {
		t.Fatalf("follow-up = seq %d %q, want seq 6 %q", follow.job.Seq, got, "burst 4")
	}
	follow.end <- nil
	other.end <- nil
	var ce *CloseError // the failed run is reported at close
	if err := d.Close(ctx); !errors.As(err, &ce) || ce.Failed != 1 || len(ce.Dropped) != 0 || ce.Terminated != 0 {
		t.Fatalf("close = %v, want one failed run", err)
	}
	s := d.Stats()
	if s.Started != 3 || s.Coalesced != 4 || s.Failed != 1 {
		t.Fatalf("stats = %+v", s)
	}
	after := d.Dispatch(ctx, []plan.Run{mkRun("triage", 2, "late")})
	if !errors.Is(after[0].Err, ErrClosed) || after[0].Ref != nil {
		t.Fatalf("dispatch after close = %+v", after[0])
	}
}

func TestDispatchRejectsIncompleteRuns(t *testing.T) {
	d, _ := newFakeDriver(t, 1, time.Second)
	noEvent := mkRun("triage", 1, "x")
	noEvent.Event = nil
	noKey := mkRun("triage", 1, "x")
	noKey.Key = ""
	noHarness := mkRun("", 1, "x")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		run  plan.Run
	}{
		{"no event", context.Background(), noEvent},
		{"no key", context.Background(), noKey},
		{"no harness", context.Background(), noHarness},
		{"cancelled", cancelled, mkRun("triage", 1, "x")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := d.Dispatch(tc.ctx, []plan.Run{tc.run})
			if res[0].Err == nil || res[0].Ref != nil {
				t.Fatalf("result = %+v, want an error", res[0])
			}
		})
	}
	if err := d.Close(context.Background()); err != nil || d.Stats().Started != 0 {
		t.Fatalf("close = %v, stats %+v", err, d.Stats())
	}
}

func TestCloseShutdown(t *testing.T) {
	for _, tc := range []struct {
		name           string
		finishInGrace  bool
		wantTerminated int
	}{
		{"active run finishes within grace", true, 0},
		{"active run terminated after grace", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const grace = 100 * time.Millisecond
			var active launch
			// Close starts timing the grace after it dropped the pending
			// runs: the active run then ends within the grace (which never
			// expires), or the grace expires at once.
			after := func(d time.Duration) <-chan time.Time {
				ch := make(chan time.Time, 1)
				switch {
				case d == grace && tc.finishInGrace:
					go func() { active.end <- nil }()
				case d == grace:
					ch <- time.Time{}
				}
				return ch
			}
			d, f := newFakeDriverAfter(t, 1, grace, after)
			d.Dispatch(context.Background(), []plan.Run{mkRun("triage", 1, "a")})
			active = f.next(t)
			d.Dispatch(context.Background(), []plan.Run{mkRun("triage", 1, "pending"), mkRun("triage", 2, "waiting")})
			stop, cancel := context.WithCancel(context.Background())
			cancel() // a signal arrived
			err := d.Close(stop)
			var se *CloseError
			if !errors.As(err, &se) {
				t.Fatalf("close = %v, want *CloseError", err)
			}
			if len(se.Dropped) != 2 || se.Terminated != tc.wantTerminated || se.Failed != tc.wantTerminated || se.Unfinished != 0 {
				t.Fatalf("shutdown = %+v", se)
			}
			if msg := se.Error(); !strings.HasPrefix(msg, "local: ") || !strings.Contains(msg, "shutdown dropped 2 pending runs (seq 3, 2)") ||
				strings.Contains(msg, "terminated") != (tc.wantTerminated > 0) {
				t.Fatalf("message = %q", msg)
			}
			seqs := map[uint64]bool{se.Dropped[0].Seq: true, se.Dropped[1].Seq: true}
			if !seqs[2] || !seqs[3] {
				t.Fatalf("dropped seqs = %v, want 2 and 3", seqs)
			}
			select {
			case l := <-f.started:
				t.Fatalf("dropped run %d started", l.job.Seq)
			default:
			}
		})
	}
}

// Waiting lists the poll locks of accepted runs that have not started,
// once each, and drops a run's lock as soon as it starts.
func TestWaitingListsQueuedRunsUntilTheyStart(t *testing.T) {
	d, f := newFakeDriver(t, 1, time.Second)
	ctx := context.Background()
	withLock := func(r plan.Run, issue string) plan.Run {
		r.PollLock = &plan.PollLock{ID: "poller-1", Driver: "jira-poll", Property: issue + "/fullsend.poll.acme.platform.lock"}
		return r
	}
	lockOf := func(issue string) plan.PollLock {
		return *withLock(plan.Run{}, issue).PollLock
	}
	d.Dispatch(ctx, []plan.Run{withLock(mkRun("triage", 1, "a"), "PROJ-1")})
	active := f.next(t)
	if w := d.Waiting(); len(w) != 0 {
		t.Fatalf("waiting with only an active run = %v", w)
	}
	d.Dispatch(ctx, []plan.Run{
		withLock(mkRun("triage", 1, "behind the active run"), "PROJ-1"),
		withLock(mkRun("triage", 2, "for a slot"), "PROJ-2"),
		withLock(mkRun("code", 2, "same lock, other key"), "PROJ-2"),
		mkRun("triage", 3, "no poll lock"),
	})
	got := d.Waiting()
	if len(got) != 2 || !slices.Contains(got, lockOf("PROJ-1")) || !slices.Contains(got, lockOf("PROJ-2")) {
		t.Fatalf("waiting = %v, want the locks of PROJ-1 and PROJ-2 once each", got)
	}
	active.end <- nil
	next := f.next(t) // the PROJ-2 triage run: keys wait in arrival order
	if next.job.Run.PollLock == nil || *next.job.Run.PollLock != lockOf("PROJ-2") {
		t.Fatalf("started %+v, want a PROJ-2 run", next.job.Run.PollLock)
	}
	got = d.Waiting() // PROJ-2 code still waits, so does PROJ-1's pending run
	if len(got) != 2 {
		t.Fatalf("waiting = %v", got)
	}
	next.end <- nil
	// code/2, then triage/3, then triage/1's pending run start in turn.
	for i, want := range [][]plan.PollLock{{lockOf("PROJ-1")}, {lockOf("PROJ-1")}, nil} {
		l := f.next(t)
		if w := d.Waiting(); !slices.Equal(w, want) {
			t.Fatalf("start %d (seq %d): waiting = %v, want %v", i, l.job.Seq, w, want)
		}
		l.end <- nil
	}
	if err := d.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if w := d.Waiting(); len(w) != 0 {
		t.Fatalf("waiting after close = %v", w)
	}
}

// TestEnded: a run is reported ended (poll.RunTracker) once it finished,
// never before, and never for another driver's ref.
func TestEnded(t *testing.T) {
	d, f := newFakeDriver(t, 1, time.Second)
	ctx := context.Background()
	ref := *d.Dispatch(ctx, []plan.Run{mkRun("triage", 1, "first")})[0].Ref
	run := f.next(t)
	if d.Ended(ref) {
		t.Fatal("a running run reported ended")
	}
	run.end <- nil
	if err := d.Close(ctx); err != nil { // waits for the run to end
		t.Fatal(err)
	}
	if !d.Ended(ref) {
		t.Error("a finished run not reported ended")
	}
	for _, other := range []plan.Ref{{Driver: "gha-dispatch", ID: ref.ID}, {Driver: DriverName, ID: "x"}, {Driver: DriverName, ID: "999"}} {
		if d.Ended(other) {
			t.Errorf("Ended(%+v) = true", other)
		}
	}
}
