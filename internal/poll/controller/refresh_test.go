package controller

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

// fakeWaiter reports its locks and signals every Waiting call.
type fakeWaiter struct {
	mu     sync.Mutex
	locks  []plan.PollLock
	polled chan struct{}
}

func (w *fakeWaiter) Waiting() []plan.PollLock {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case w.polled <- struct{}{}:
	default:
	}
	return append([]plan.PollLock(nil), w.locks...)
}

func (w *fakeWaiter) set(locks ...plan.PollLock) {
	w.mu.Lock()
	w.locks = locks
	w.mu.Unlock()
}

type fakeRefresher struct{ calls chan []plan.PollLock }

func (r *fakeRefresher) RefreshLocks(_ context.Context, locks []plan.PollLock) (int, int, error) {
	r.calls <- locks
	if len(locks) > 1 {
		return 1, 0, errors.New("one failed")
	}
	return len(locks), 0, nil
}

// The locks of waiting runs are handed to the refresher every interval,
// none when no run waits, and still after the poll's context ended (the
// executor is closed after a stop signal); stop ends the goroutine.
func TestRefreshWaitingLocks(t *testing.T) {
	w := &fakeWaiter{polled: make(chan struct{})}
	r := &fakeRefresher{calls: make(chan []plan.PollLock, 1024)}
	ctx, cancel := context.WithCancel(context.Background())
	stop := refreshWaiting(ctx, w, r, time.Millisecond, slog.New(slog.DiscardHandler))
	for range 3 { // three rounds that found no waiting run
		<-w.polled
	}
	if n := len(r.calls); n != 0 {
		t.Fatalf("%d refresh calls with no waiting run", n)
	}
	a := plan.PollLock{ID: "p", Driver: "jira-poll", Property: "PROJ-1/k"}
	b := plan.PollLock{ID: "p", Driver: "jira-poll", Property: "PROJ-2/k"}
	w.set(a, b)
	cancel() // a stop signal: the executor still finishes its queue
	for _, want := range [][]plan.PollLock{{a, b}, {a, b}} {
		select {
		case got := <-r.calls:
			if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
				t.Fatalf("refreshed %v, want %v", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no refresh within 5s")
		}
	}
	stop() // returns once the goroutine has ended: no call can follow
	for len(r.calls) > 0 {
		<-r.calls
	}
	select {
	case <-w.polled:
		t.Fatal("Waiting polled after stop")
	default:
	}
	if n := len(r.calls); n != 0 {
		t.Fatalf("%d refresh calls after stop", n)
	}
}
