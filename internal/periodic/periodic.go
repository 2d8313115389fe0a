// Package periodic runs a function on a fixed interval in the background.
package periodic

import (
	"context"
	"time"
)

// Every calls fn every interval, in one goroutine, until fn returns false
// or the returned stop is called; stop cancels fn's context and waits for
// the goroutine to end. The goroutine outlives ctx's cancellation (its
// values are kept): callers that must keep working after a stop signal,
// such as lock refreshers, end it with stop. interval must be positive.
func Every(ctx context.Context, interval time.Duration, fn func(ctx context.Context) bool) (stop func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if !fn(ctx) {
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}
