package periodic

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tick sends one tick and reports whether the loop took it: an unbuffered
// channel that nobody reads after the loop ended.
func tick(ticks chan time.Time) bool {
	select {
	case ticks <- time.Time{}:
		return true
	default:
		return false
	}
}

func TestEveryUntilFalse(t *testing.T) {
	var n atomic.Int32
	ticks := make(chan time.Time)
	released := make(chan struct{})
	stop := OnTicks(context.Background(), ticks, func() { close(released) }, func(context.Context) bool {
		return n.Add(1) < 3
	})
	for i := 0; i < 3; i++ {
		ticks <- time.Time{}
	}
	<-released // the loop ended after the third call
	stop()     // must not block after fn ended the loop
	if tick(ticks) {
		t.Fatal("the loop took a tick after fn returned false")
	}
	if got := n.Load(); got != 3 {
		t.Fatalf("calls = %d, want 3", got)
	}
}

func TestEveryOutlivesCancelUntilStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ticks := make(chan time.Time)
	calls := make(chan struct{}, 10)
	stop := OnTicks(ctx, ticks, func() {}, func(c context.Context) bool {
		if c.Err() != nil {
			t.Error("fn got a cancelled context before stop")
		}
		calls <- struct{}{}
		return true
	})
	for i := 0; i < 2; i++ {
		ticks <- time.Time{}
		<-calls
	}
	stop()
	if tick(ticks) || len(calls) != 0 {
		t.Fatal("fn called after stop returned")
	}
}

// stop waits for a call in progress to end.
func TestStopWaitsForFn(t *testing.T) {
	ticks := make(chan time.Time)
	entered := make(chan struct{})
	var returned atomic.Bool
	stop := OnTicks(context.Background(), ticks, func() {}, func(c context.Context) bool {
		close(entered)
		<-c.Done()
		returned.Store(true)
		return true
	})
	ticks <- time.Time{}
	<-entered
	stop()
	if !returned.Load() {
		t.Fatal("stop returned while fn was still running")
	}
}

func TestEveryTicks(t *testing.T) {
	calls := make(chan struct{})
	stop := Every(context.Background(), time.Millisecond, func(context.Context) bool {
		calls <- struct{}{}
		return true
	})
	<-calls
	<-calls
	go func() {
		for range calls {
		}
	}()
	stop()
	close(calls)
}
