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
	t := time.NewTicker(interval)
	return OnTicks(ctx, t.C, t.Stop, fn)
}

// OnTicks is Every driven by ticks instead of a ticker (tests send the
// ticks): fn runs on every tick until fn returns false or stop is called;
// release (may be nil) frees the tick source when the goroutine ends.
func OnTicks(ctx context.Context, ticks <-chan time.Time, release func(), fn func(ctx context.Context) bool) (stop func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if release != nil {
			defer release()
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticks:
			}
			if !fn(ctx) {
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}
