package jirapoll_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/output/local"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// RefreshLocks rewrites the ts of the locks that still carry this poller's
// id (a stale one included), keeping phase and runs, and leaves alone the
// locks that are gone or held by another id, and references it does not own.
func TestRefreshLocksOnlyTouchesOwnLocks(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	p := e.poller(pollerOpts{stale: time.Minute})
	now := e.clock.Now()
	put := func(k, id string, age time.Duration) polllock.Lock {
		l := polllock.Lock{ID: id, TS: now.Add(-age), Phase: polllock.PhaseDispatched,
			Runs: []plan.Ref{{Driver: "local", ID: "3"}}}
		e.sim.SetPropertyDirect(k, lockKey(), l.Marshal())
		l, _ = e.lock(k)
		return l
	}
	ref := func(k, id string) plan.PollLock {
		return plan.PollLock{ID: id, Driver: jirapoll.Name, Property: polllock.FormatRef(k, lockKey())}
	}
	waiting, stale, other, gone, foreign := e.issue(), e.issue(), e.issue(), e.issue(), e.issue()
	put(waiting, "poller-1", 50*time.Second)
	put(stale, "poller-1", 2*time.Minute)
	otherLock := put(other, "poller-2", 50*time.Second)
	foreignLock := put(foreign, "poller-1", 50*time.Second)
	refs := []plan.PollLock{ref(waiting, "poller-1"), ref(stale, "poller-1"), ref(other, "poller-1"),
		ref(gone, "poller-1"), ref(foreign, "poller-2"),
		{ID: "poller-1", Driver: "other-poll", Property: polllock.FormatRef(foreign, lockKey())}}

	refreshed, lost, err := p.drv.RefreshLocks(context.Background(), refs)
	if err != nil || refreshed != 2 || lost != 2 {
		t.Fatalf("RefreshLocks = %d refreshed, %d lost, %v; want 2, 2, nil", refreshed, lost, err)
	}
	for _, k := range []string{waiting, stale} {
		l, ok := e.lock(k)
		if !ok || l.ID != "poller-1" || l.Stale(e.clock.Now(), 5*time.Second) ||
			l.Phase != polllock.PhaseDispatched || !slices.Equal(l.Runs, []plan.Ref{{Driver: "local", ID: "3"}}) {
			t.Errorf("lock on %s = %+v (found %v), want poller-1's, fresh, phase and runs kept", k, l, ok)
		}
	}
	if l, _ := e.lock(other); !l.TS.Equal(otherLock.TS) || l.ID != "poller-2" {
		t.Errorf("another poller's lock was touched: %+v", l)
	}
	if l, _ := e.lock(foreign); !l.TS.Equal(foreignLock.TS) {
		t.Errorf("a lock named by a reference this poller does not own was touched: %+v", l)
	}
	if l, ok := e.lock(gone); ok {
		t.Errorf("a gone lock was written: %+v", l)
	}
}

// blockingLauncher is the local executor's launcher with agents that run
// until released; each launch first checks, as `fullsend run` does, that
// its poll lock is still this poller's and fresh.
type blockingLauncher struct {
	e       *env
	stale   time.Duration
	started chan local.Job
	fresh   chan bool
	release chan struct{}
}

func (b *blockingLauncher) Launch(ctx context.Context, j local.Job) error {
	k, _, _ := polllock.ParseRef(j.Run.PollLock.Property)
	l, ok := b.e.lock(k)
	b.fresh <- ok && l.ID == j.Run.PollLock.ID && !l.Stale(b.e.clock.Now(), b.stale)
	b.started <- j
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return nil
}

// A polled run that waits in the local executor's queue longer than the
// stale threshold still finds its lock fresh when it starts, because the
// poller refreshes the locks of its waiting runs.
func TestQueuedLocalRunKeepsItsLockFresh(t *testing.T) {
	const stale = 600 * time.Millisecond
	e := newEnv(t, jirasim.Options{})
	keys := e.issues(2, seeded, "")
	a, b := keys[0], keys[1]
	e.sim.AddComment(a, alice, "first")
	e.sim.AddComment(b, alice, "second")
	bl := &blockingLauncher{e: e, stale: stale, started: make(chan local.Job, 2), fresh: make(chan bool, 2),
		release: make(chan struct{})}
	out, err := local.New(local.Options{MaxParallel: 1, Launcher: bl})
	if err != nil {
		t.Fatal(err)
	}
	p := e.poller(pollerOpts{out: out, stale: stale})
	if st := p.mustCycle(); st.DispatchesScheduled != 2 {
		t.Fatalf("stats = %+v", st)
	}
	if !<-bl.fresh {
		t.Fatal("the first run found its lock stale")
	}
	<-bl.started
	w := out.Waiting()
	if len(w) != 1 {
		t.Fatalf("waiting = %v, want the second issue's lock", w)
	}
	// Three stale thresholds pass, with a refresh every quarter of one as
	// the watch loop does.
	for range 12 {
		e.clock.Advance(stale / 4)
		if n, lost, err := p.drv.RefreshLocks(context.Background(), out.Waiting()); err != nil || n != 1 || lost != 0 {
			t.Fatalf("RefreshLocks = %d, %d, %v", n, lost, err)
		}
	}
	bl.release <- struct{}{} // the first run ends; the waiting one starts
	if !<-bl.fresh {
		t.Fatal("the queued run found its lock stale")
	}
	<-bl.started
	if w := out.Waiting(); len(w) != 0 {
		t.Fatalf("waiting after both started = %v", w)
	}
	close(bl.release)
	if err := out.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
