package periodic

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestEveryUntilFalse(t *testing.T) {
	var n atomic.Int32
	ended := make(chan struct{})
	stop := Every(context.Background(), time.Millisecond, func(context.Context) bool {
		if n.Add(1) == 3 {
			close(ended)
			return false
		}
		return true
	})
	<-ended
	stop() // must not block after fn ended the loop
	time.Sleep(5 * time.Millisecond)
	if got := n.Load(); got != 3 {
		t.Fatalf("calls = %d, want 3", got)
	}
}

func TestEveryOutlivesCancelUntilStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := make(chan struct{}, 10)
	stop := Every(ctx, time.Millisecond, func(c context.Context) bool {
		if c.Err() != nil {
			t.Error("fn got a cancelled context before stop")
		}
		calls <- struct{}{}
		return true
	})
	<-calls
	<-calls
	stop()
	n := len(calls)
	time.Sleep(5 * time.Millisecond)
	if len(calls) != n {
		t.Fatal("fn called after stop returned")
	}
}
