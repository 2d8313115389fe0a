package controller

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/periodic"
)

// WatchOptions configure Watch.
type WatchOptions struct {
	Interval time.Duration // wait between cycles (default 60s)
	Log      *slog.Logger
	// Sleep waits d or until ctx ends (tests replace it).
	Sleep func(ctx context.Context, d time.Duration) error
	// Fatal, when set, says which cycle errors end the watch (a
	// configuration error): Watch returns them.
	Fatal func(error) bool
}

// Watch calls cycle repeatedly until ctx ends, waiting Interval between
// calls. After a failing call the wait doubles with every further failure,
// capped at periodic.MaxBackoffFactor×Interval, and resets after a success or a
// call whose only failures were refused dispatches (ErrDispatchesRefused),
// which the next call dispatches again. A
// cancelled ctx is the normal way out: Watch then returns nil (the cycle
// itself is responsible for finishing or rolling back its work); the only
// other one is an error Fatal accepts, which Watch returns.
func Watch(ctx context.Context, o WatchOptions, cycle func(ctx context.Context) error) error {
	if o.Interval <= 0 {
		o.Interval = time.Minute
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Sleep == nil {
		o.Sleep = httpx.Sleep
	}
	failures := 0
	for ctx.Err() == nil {
		err := cycle(ctx)
		switch {
		case err != nil && ctx.Err() == nil && o.Fatal != nil && o.Fatal(err):
			return err
		case err != nil && ctx.Err() == nil && !refusedOnly(err):
			failures++
		default:
			failures = 0
		}
		wait := periodic.Backoff(o.Interval, failures)
		if failures > 0 {
			o.Log.Warn("poll cycle failed; backing off", "consecutive_failures", failures, "next_in", wait)
		}
		if o.Sleep(ctx, wait) != nil {
			break
		}
	}
	return nil
}

// ErrDispatchesRefused matches (errors.Is) the error of a Controller
// cycle whose only failures were dispatches the output refused
// (output.ErrNotStarted, CycleStats.DispatchesRefused): a one-shot `poll`
// still exits 1, but Watch does not back off for it, since the next cycle
// dispatches them again at once.
var ErrDispatchesRefused = errors.New("dispatches refused")

// refusedOnly reports whether err, or every error err joins, matches
// ErrDispatchesRefused.
func refusedOnly(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		for _, e := range errs {
			if !refusedOnly(e) {
				return false
			}
		}
		return len(errs) > 0
	}
	return errors.Is(err, ErrDispatchesRefused)
}
