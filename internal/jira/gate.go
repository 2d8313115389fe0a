package jira

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A Gate bounds when a call's attempts may still be sent: the client asks
// it before every wait of the call (the limiter's, a pause for a
// Retry-After or an exhausted budget, a retry's backoff), with that wait,
// and right before each attempt is sent, with 0. An error ends the call
// there: the attempt is not sent. It lets a writer whose write is only
// safe within some time of an earlier read (the poll lock's claim window)
// give the write up instead of sending it late.
type Gate func(wait time.Duration) error

type gateKey struct{}

// WithGate makes the calls made with ctx ask g (see Gate).
func WithGate(ctx context.Context, g Gate) context.Context {
	return context.WithValue(ctx, gateKey{}, g)
}

// SentAt is a gate that stops nothing and records in *at, on the clock
// now, when the call's last attempt left: what the answer says was read
// after then. A caller that bounds a write by the time of an earlier read
// (WithGate) measures from there, not from before the read's own waits.
func SentAt(at *time.Time, now func() time.Time) Gate {
	return func(wait time.Duration) error {
		if wait == 0 {
			*at = now()
		}
		return nil
	}
}

func gateOf(ctx context.Context) Gate {
	g, _ := ctx.Value(gateKey{}).(Gate)
	return g
}

// ErrNotSent marks a call its gate (WithGate) ended before any attempt
// could take effect: none was sent, or every one sent was refused with a
// 4xx (a 429 included), which Jira does not apply. A call that ends at its
// gate after an attempt that may have taken effect (a transport error, a
// 5xx) is another error: its outcome is unknown.
var ErrNotSent = errors.New("not sent")

// gateError is a gate's refusal, carried through the HTTP stack.
type gateError struct{ err error }

func (e *gateError) Error() string { return "stopped at its gate: " + e.err.Error() }
func (e *gateError) Unwrap() error { return e.err }

// ask asks g about a wait of d; nil g allows everything.
func (g Gate) ask(d time.Duration) error {
	if g == nil {
		return nil
	}
	if err := g(d); err != nil {
		return &gateError{err}
	}
	return nil
}

// gateSleep is the retry policy's sleep of a call with gate g: the gate
// is asked first.
func gateSleep(g Gate, sleep func(context.Context, time.Duration) error) func(context.Context, time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		if err := g.ask(d); err != nil {
			return err
		}
		return sleep(ctx, d)
	}
}

// mayHaveTakenEffect reports whether an attempt that ended with status
// and err may have been applied by Jira: anything but an answer refusing
// it (4xx) and a refusal at the gate.
func mayHaveTakenEffect(status int, err error) bool {
	var ge *gateError
	if errors.As(err, &ge) {
		return false
	}
	return status < 400 || status >= 500
}

// gated is the error of a call that ended at its gate: ErrNotSent when no
// attempt may have taken effect, else last (the last attempt's error)
// with the refusal.
func gated(cl call, ge *gateError, effect bool, last error) error {
	if !effect {
		return fmt.Errorf("jira %s: %w (%v)", cl.endpoint(), ErrNotSent, ge)
	}
	if last == nil || errors.As(last, new(*gateError)) {
		return fmt.Errorf("jira %s: %v, after an attempt that may have taken effect", cl.endpoint(), ge)
	}
	return fmt.Errorf("%w (then %v)", last, ge)
}
