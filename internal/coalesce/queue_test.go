package coalesce

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// call is one run observed by the fake runner; the test ends it by sending
// the run's result (nil, an error, or errPanic to make it panic).
type call struct {
	key  string
	item int
	end  chan error
}

var errPanic = errors.New("panic please")

// fake is a controllable runner: every run announces itself on started and
// blocks until the test sends its result.
type fake struct {
	started chan call
	seen    uint64 // runs next returned; used by the test goroutine only
}

func newFake() *fake { return &fake{started: make(chan call, 64)} }

func (f *fake) run(ctx context.Context, key string, item int) error {
	c := call{key: key, item: item, end: make(chan error, 1)}
	f.started <- c
	select {
	case err := <-c.end:
		if err == errPanic {
			panic("boom")
		}
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// next waits for the next started run.
func (f *fake) next(t *testing.T) call {
	t.Helper()
	select {
	case c := <-f.started:
		f.seen++
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no run started within 5s")
	}
	return call{}
}

// none asserts that q started no run beyond those next returned. Runs
// start inside Submit or when a run ends, both counted before the run's
// goroutine exists, so at a point where no run is ending (right after
// Submit, or after Drain) the count is final: no waiting window.
func (f *fake) none(t *testing.T, q *Queue[string, int]) {
	t.Helper()
	if got := q.Stats().Started; got != f.seen {
		t.Fatalf("%d runs started, want %d", got, f.seen)
	}
	select {
	case c := <-f.started:
		t.Fatalf("unexpected run %s/%d", c.key, c.item)
	default:
	}
}

func drain(t *testing.T, q *Queue[string, int]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := q.Drain(ctx); err != nil {
		t.Fatalf("drain: %v", err)
	}
}

func TestBurstOnActiveKeyYieldsOneFollowUpWithNewest(t *testing.T) {
	for _, k := range []int{1, 2, 10, 1000} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			f := newFake()
			q := New(4, f.run)
			if got := q.Submit("a", 0); got != Started {
				t.Fatalf("first submit = %v, want started", got)
			}
			first := f.next(t)
			for i := 1; i <= k; i++ {
				want := Coalesced
				if i == 1 {
					want = Pending
				}
				if got := q.Submit("a", i); got != want {
					t.Fatalf("submit %d = %v, want %v", i, got, want)
				}
			}
			f.none(t, q) // the active run is not cancelled, no second run starts
			first.end <- nil
			follow := f.next(t)
			if follow.key != "a" || follow.item != k {
				t.Fatalf("follow-up = %s/%d, want a/%d", follow.key, follow.item, k)
			}
			follow.end <- nil
			drain(t, q)
			f.none(t, q)
			s := q.Stats()
			if s.Started != 2 || s.Coalesced != uint64(k-1) || s.Submitted != uint64(k+1) || s.Keys != 0 {
				t.Fatalf("stats = %+v", s)
			}
		})
	}
}

func TestOtherKeyRunsInParallel(t *testing.T) {
	f := newFake()
	q := New(2, f.run)
	q.Submit("a", 1)
	a := f.next(t)
	if got := q.Submit("b", 1); got != Started {
		t.Fatalf("submit b = %v, want started", got)
	}
	b := f.next(t) // starts while a is still active
	if b.key != "b" {
		t.Fatalf("got %s, want b", b.key)
	}
	if got := q.Submit("c", 1); got != Queued {
		t.Fatalf("submit c with both slots busy = %v, want queued", got)
	}
	if s := q.Stats(); s.Active != 2 || s.Waiting != 1 || s.Keys != 3 {
		t.Fatalf("stats = %+v", s)
	}
	b.end <- nil
	if c := f.next(t); c.key != "c" {
		t.Fatalf("got %s, want c", c.key)
	} else {
		c.end <- nil
	}
	a.end <- nil
	drain(t, q)
}

func TestEndedRunStillStartsPending(t *testing.T) {
	for _, tc := range []struct {
		name    string
		result  error
		failed  uint64
		wantErr error
	}{
		{"success", nil, 0, nil},
		{"error", errors.New("agent exited 1"), 1, nil},
		{"panic", errPanic, 1, ErrPanic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			var gotErr error
			var mu sync.Mutex
			q := New(1, f.run, Options[string, int]{OnDone: func(key string, item int, err error) {
				if item == 0 {
					mu.Lock()
					gotErr = err
					mu.Unlock()
				}
			}})
			q.Submit("a", 0)
			first := f.next(t)
			q.Submit("a", 1)
			first.end <- tc.result
			second := f.next(t)
			if second.item != 1 {
				t.Fatalf("follow-up item = %d, want 1", second.item)
			}
			second.end <- nil
			drain(t, q)
			if s := q.Stats(); s.Failed != tc.failed || s.Started != 2 {
				t.Fatalf("stats = %+v", s)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case tc.wantErr != nil && !errors.Is(gotErr, tc.wantErr):
				t.Fatalf("OnDone err = %v, want %v", gotErr, tc.wantErr)
			case tc.wantErr == nil && gotErr != tc.result:
				t.Fatalf("OnDone err = %v, want %v", gotErr, tc.result)
			}
		})
	}
}

func TestHotKeyCannotStarveOthers(t *testing.T) {
	f := newFake()
	q := New(1, f.run)
	q.Submit("hot", 0)
	c := f.next(t)
	q.Submit("hot", 1) // pending behind the active run
	q.Submit("b", 1)   // waiting for the slot
	q.Submit("c", 1)
	var order []string
	for i := 0; i < 4; i++ {
		c.end <- nil
		if i == 3 {
			break
		}
		c = f.next(t)
		order = append(order, c.key)
		q.Submit("hot", 10+i) // keeps the hot key busy all the time
	}
	// hot finishes with a pending item and re-enters behind b and c.
	want := []string{"b", "c", "hot"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("start order = %v, want %v", order, want)
	}
	last := f.next(t)
	if last.key != "hot" || last.item != 12 {
		t.Fatalf("last = %s/%d, want hot/12", last.key, last.item)
	}
	last.end <- nil
	drain(t, q)
}

func TestPerKeyOrderPreserved(t *testing.T) {
	f := newFake()
	q := New(3, f.run)
	seen := map[string][]int{}
	next := map[string]int{}
	keys := []string{"a", "b", "c", "d"}
	for _, k := range keys {
		q.Submit(k, 0)
		next[k] = 1
	}
	for runs := 0; runs < 50; runs++ {
		c := f.next(t)
		seen[c.key] = append(seen[c.key], c.item)
		for _, k := range keys { // submit more while runs are active
			q.Submit(k, next[k])
			next[k]++
		}
		c.end <- nil
	}
	q.Close()
	done := make(chan error, 1)
	go func() { done <- q.Wait(context.Background()) }()
	for finished := false; !finished; { // finish what was accepted
		select {
		case c := <-f.started:
			seen[c.key] = append(seen[c.key], c.item)
			c.end <- nil
		case <-done:
			finished = true
		case <-time.After(5 * time.Second):
			t.Fatal("queue did not drain within 5s")
		}
	}
	for _, k := range keys { // the newest accepted item of every key ran
		if got := seen[k][len(seen[k])-1]; got != next[k]-1 {
			t.Fatalf("key %s: last run item %d, want newest %d", k, got, next[k]-1)
		}
	}
	for k, items := range seen {
		for i := 1; i < len(items); i++ {
			if items[i] <= items[i-1] {
				t.Fatalf("key %s ran items out of order: %v", k, items)
			}
		}
	}
	if len(seen) != len(keys) {
		t.Fatalf("keys that ran = %d, want %d (fairness)", len(seen), len(keys))
	}
}

func TestCloseStopAbort(t *testing.T) {
	f := newFake()
	q := New(1, f.run)
	q.Submit("a", 0)
	f.next(t) // a/0 is active and never ended by the test
	q.Submit("a", 1)
	q.Submit("b", 1)
	q.Submit("b", 2)
	q.Close()
	if got := q.Submit("c", 1); got != Rejected || got.Accepted() {
		t.Fatalf("submit after close = %v", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := q.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait with an active run = %v, want deadline exceeded", err)
	}
	dropped := q.Stop()
	got := map[string]int{}
	for _, d := range dropped {
		got[d.Key] = d.Item
	}
	if len(dropped) != 2 || got["a"] != 1 || got["b"] != 2 {
		t.Fatalf("dropped = %+v, want a/1 and b/2", dropped)
	}
	q.Abort() // cancels the active run's context
	drain(t, q)
	f.none(t, q)
	if s := q.Stats(); s.Dropped != 2 || s.Rejected != 1 || s.Failed != 1 || s.Keys != 0 {
		t.Fatalf("stats = %+v", s)
	}
}

// TestConcurrentSubmitNeverTwoActive hammers the queue from many
// goroutines and checks, under -race, that no key ever has two active runs,
// parallelism stays within the limit, and every key's newest item runs last.
func TestConcurrentSubmitNeverTwoActive(t *testing.T) {
	const (
		goroutines = 8
		keysPer    = 8
		perKey     = 200
		maxPar     = 4
	)
	var (
		perKeyActive sync.Map // key -> *atomic.Int32
		active       atomic.Int32
		violations   atomic.Int32
		mu           sync.Mutex
		lastRun      = map[string]int{}
	)
	run := func(_ context.Context, key string, item int) error {
		v, _ := perKeyActive.LoadOrStore(key, new(atomic.Int32))
		n := v.(*atomic.Int32)
		if n.Add(1) != 1 {
			violations.Add(1)
		}
		if active.Add(1) > maxPar {
			violations.Add(1)
		}
		mu.Lock()
		if item <= lastRun[key] && lastRun[key] != 0 {
			violations.Add(1)
		}
		lastRun[key] = item
		mu.Unlock()
		runtime.Gosched() // let other runs interleave while this one is active
		active.Add(-1)
		n.Add(-1)
		if item%7 == 0 {
			return errors.New("odd failure")
		}
		return nil
	}
	q := New(maxPar, run)
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= perKey; i++ {
				for k := 0; k < keysPer; k++ {
					q.Submit(fmt.Sprintf("g%d-k%d", g, k), i)
				}
			}
		}()
	}
	wg.Wait()
	drain(t, q)
	if v := violations.Load(); v != 0 {
		t.Fatalf("%d invariant violations", v)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lastRun) != goroutines*keysPer {
		t.Fatalf("%d keys ran, want %d", len(lastRun), goroutines*keysPer)
	}
	for k, item := range lastRun {
		if item != perKey {
			t.Fatalf("key %s last ran item %d, want the newest %d", k, item, perKey)
		}
	}
}

func TestPendingItemsListsAcceptedNotStarted(t *testing.T) {
	f := newFake()
	q := New(1, f.run)
	q.Submit("a", 1)
	a := f.next(t)
	q.Submit("a", 2) // pending behind its own active run
	q.Submit("b", 1) // waiting for a slot
	q.Submit("b", 2) // replaces b's waiting item
	got := map[string]int{}
	for _, it := range q.PendingItems() {
		got[it.Key] = it.Item
	}
	if len(got) != 2 || got["a"] != 2 || got["b"] != 2 {
		t.Fatalf("pending = %v, want a:2 b:2", got)
	}
	a.end <- nil
	next := f.next(t) // b goes first: a re-entered at the back
	if next.key != "b" {
		t.Fatalf("started %s, want b", next.key)
	}
	if p := q.PendingItems(); len(p) != 1 || p[0].Key != "a" || p[0].Item != 2 {
		t.Fatalf("pending after b started = %v, want [a:2]", p)
	}
	next.end <- nil
	f.next(t).end <- nil
	drain(t, q)
	if p := q.PendingItems(); len(p) != 0 {
		t.Fatalf("pending after drain = %v", p)
	}
}
