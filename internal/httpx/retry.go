package httpx

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry is the one retry policy of every fullsend HTTP client: a bounded
// number of attempts and, optionally, a bounded total time; waits from the
// server (Retry-After and the like) are honoured up to MaxServerWait,
// otherwise exponential backoff. What may be retried is not decided here:
// each forge package classifies its own failures (see Outcome).
type Retry struct {
	// MaxAttempts counts the first attempt too; 1 or less means no retry.
	MaxAttempts int
	// Budget bounds the time from the first attempt to the start of the
	// last one (waits included); zero means no bound.
	Budget time.Duration
	// BaseBackoff is the first backoff ceiling, doubled per retry up to
	// MaxBackoff.
	BaseBackoff, MaxBackoff time.Duration
	// MaxServerWait is the longest server-requested wait honoured; a
	// longer one ends the retries (StopWaitTooLong). Zero means no bound.
	MaxServerWait time.Duration
	// Rand returns a uniform int64 in [0,n) for full-jitter backoff; nil
	// means no jitter (the ceiling itself is the wait).
	Rand func(n int64) int64
	// Sleep waits d or until ctx ends (default Sleep); Now is the clock
	// (default time.Now). Tests replace both.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	// OnRetry, when set, is told about every retry before its wait.
	OnRetry func(RetryInfo)
}

// RetryInfo describes one retry for logging: the attempt that failed
// (1-based), the wait before the next one and why it failed.
type RetryInfo struct {
	Attempt int
	Wait    time.Duration
	Reason  string
}

// Outcome is a forge's verdict on a failed attempt.
type Outcome struct {
	// Retry says the failure may be retried.
	Retry bool
	// Wait is the wait the server asked for, when HasWait.
	Wait    time.Duration
	HasWait bool
	// Reason is a short, secret-free description for logs ("HTTP 503").
	Reason string
}

// Stop says why Do returned.
type Stop int

const (
	StopDone        Stop = iota // the last attempt succeeded
	StopPermanent               // the failure is not retryable
	StopAttempts                // MaxAttempts reached
	StopBudget                  // the next wait would exceed Budget
	StopWaitTooLong             // the server asked for more than MaxServerWait
	StopInterrupted             // the wait was cut short (context ended)
)

// Result tells the caller how Do ended.
type Result struct {
	Attempts int
	Stop     Stop
	// Wait is the wait that was refused (StopWaitTooLong, StopBudget).
	Wait time.Duration
	// SleepErr is the context error that ended a wait (StopInterrupted).
	SleepErr error
}

// Do runs attempt until it returns a nil error or the policy stops. attempt
// gets the 1-based attempt number and returns its error and, for a failure,
// the forge's verdict. Do returns the last attempt's error.
func (p Retry) Do(ctx context.Context, attempt func(ctx context.Context, n int) (Outcome, error)) (Result, error) {
	p = p.withDefaults()
	start := p.Now()
	for n := 1; ; n++ {
		out, err := attempt(ctx, n)
		res := Result{Attempts: n}
		switch {
		case err == nil:
			return res, nil
		case !out.Retry:
			res.Stop = StopPermanent
			return res, err
		case n >= p.MaxAttempts:
			res.Stop = StopAttempts
			return res, err
		}
		wait := p.backoff(n)
		if out.HasWait {
			if p.MaxServerWait > 0 && out.Wait > p.MaxServerWait {
				res.Stop, res.Wait = StopWaitTooLong, out.Wait
				return res, err
			}
			wait = out.Wait
		}
		if p.Budget > 0 && p.Now().Add(wait).Sub(start) > p.Budget {
			res.Stop, res.Wait = StopBudget, wait
			return res, err
		}
		if p.OnRetry != nil {
			p.OnRetry(RetryInfo{Attempt: n, Wait: wait, Reason: out.Reason})
		}
		if serr := p.Sleep(ctx, wait); serr != nil {
			res.Stop, res.SleepErr = StopInterrupted, serr
			return res, err
		}
	}
}

func (p Retry) withDefaults() Retry {
	if p.MaxAttempts < 1 {
		p.MaxAttempts = 1
	}
	if p.Sleep == nil {
		p.Sleep = Sleep
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	return p
}

// backoff is the wait after failed attempt n (1-based): the ceiling
// BaseBackoff*2^(n-1), capped at MaxBackoff, with full jitter when Rand is
// set.
func (p Retry) backoff(n int) time.Duration {
	if p.BaseBackoff <= 0 {
		return 0
	}
	ceil := p.BaseBackoff
	for i := 1; i < n && (p.MaxBackoff <= 0 || ceil < p.MaxBackoff); i++ {
		ceil *= 2
	}
	if p.MaxBackoff > 0 && ceil > p.MaxBackoff {
		ceil = p.MaxBackoff
	}
	if p.Rand == nil {
		return ceil
	}
	return time.Duration(p.Rand(int64(ceil)))
}

// RetryAfter parses a Retry-After header value (delay seconds or an HTTP
// date) relative to now. ok is false when the header is absent or invalid.
// A date in the past yields 0; a delay is capped at 24 hours.
func RetryAfter(value string, now time.Time) (d time.Duration, ok bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	if d = t.Sub(now); d < 0 {
		d = 0
	}
	return d, true
}

// Sleep waits d or until ctx is done, whichever comes first. It returns nil
// after a full wait and ctx.Err() when ctx ends first. A d of zero or less
// does not wait: it returns ctx.Err() at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
