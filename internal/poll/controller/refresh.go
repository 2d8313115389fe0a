package controller

import (
	"context"
	"log/slog"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/periodic"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// refreshQueued keeps fresh, until the returned stop is called (stop
// waits for the goroutine to end), the poll locks of the runs an
// in-process executor (output.Waiter) accepted but has not started: no
// `fullsend run` refreshes them yet, and a run queued for longer than
// lock.stale_threshold must still hold its lock when it starts. The locks
// are those of the lock input, the one `fullsend run` uses. It outlives
// ctx's cancellation: after a stop signal the executor is still closed.
func (c *Controller) refreshQueued(ctx context.Context, out output.Driver) (stop func()) {
	w, ok := out.(output.Waiter)
	var r poll.LockRefresher
	if c.lockInput != nil {
		r = c.lockInput.InputCapabilities().Refresh
	}
	if !ok || r == nil || c.o.DryRun {
		return func() {}
	}
	return refreshWaiting(ctx, w, r, c.lockInput.Settings().Lock.RefreshInterval, c.o.Log)
}

// refreshWaiting refreshes, every interval (default
// config.DefaultRefreshInterval) until stop, the locks w reports waiting.
func refreshWaiting(ctx context.Context, w output.Waiter, r poll.LockRefresher, every time.Duration, log *slog.Logger) (stop func()) {
	if every <= 0 {
		every = config.DefaultRefreshInterval
	}
	return periodic.Every(ctx, every, func(ctx context.Context) bool {
		locks := w.Waiting()
		if len(locks) == 0 {
			return true
		}
		n, lost, err := r.RefreshLocks(ctx, locks)
		attrs := []any{"waiting", len(locks), "refreshed", n, "lost", lost}
		if err != nil && ctx.Err() == nil {
			log.Warn("refreshing the poll locks of queued runs", append(attrs, "error", err.Error())...)
			return true
		}
		log.Info("poll locks of queued runs refreshed", attrs...)
		return true
	})
}
