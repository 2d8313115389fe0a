package local

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/english"
)

// CloseError reports what Close could not complete: runs that failed,
// pending runs dropped by a shutdown, and active runs it terminated.
type CloseError struct {
	Failed     int   // runs that ended with an error (each was logged)
	Dropped    []Job // pending runs that never started
	Terminated int   // active runs stopped after the grace period
	Unfinished int   // runs still not ended after termination
}

func (e *CloseError) Error() string {
	var parts []string
	if e.Failed > 0 {
		parts = append(parts, english.Count(e.Failed, "run")+" failed")
	}
	if n := len(e.Dropped); n > 0 {
		seqs := make([]string, n)
		for i, j := range e.Dropped {
			seqs[i] = strconv.FormatUint(j.Seq, 10)
		}
		parts = append(parts, fmt.Sprintf("shutdown dropped %s (seq %s)", english.Count(n, "pending run"), strings.Join(seqs, ", ")))
	}
	if e.Terminated > 0 {
		parts = append(parts, fmt.Sprintf("terminated %s after the grace period", english.Count(e.Terminated, "active run")))
	}
	if e.Unfinished > 0 {
		parts = append(parts, english.Count(e.Unfinished, "run")+" did not end after termination")
	}
	return "local: " + strings.Join(parts, "; ")
}

// Close stops accepting runs and finishes the accepted ones:
//
//   - while ctx is live, every accepted run — active or pending — runs to
//     its end (a one-shot `fullsend dispatch` waits for its runs);
//   - once ctx is done (a SIGINT/SIGTERM, or a caller that wants to stop
//     now and passes a cancelled context), pending runs are dropped and
//     logged, active runs get the grace period to finish, then are
//     terminated: SIGTERM, which the child `fullsend run` forwards to its
//     agent (killed after the kill delay) before it releases the poll
//     lock; a child still running after the kill delay plus the
//     teardown allowance is killed.
//
// It returns nil when every accepted run ran and succeeded, else a
// *CloseError.
func (d *Driver) Close(ctx context.Context) error {
	d.q.Close()
	if d.steer != nil {
		defer d.steer.Close()
	}
	se := &CloseError{}
	if ctx.Err() == nil && d.q.Wait(ctx) == nil {
		return se.orNil(d.q.Stats().Failed)
	}
	for _, it := range d.q.Stop() {
		se.Dropped = append(se.Dropped, it.Item)
		d.log.Warn("local run dropped at shutdown", "harness", it.Item.Run.Harness,
			"key", string(it.Key), "seq", it.Item.Seq)
	}
	active := d.q.Stats().Active
	if active > 0 {
		d.log.Info("waiting for active local runs", "active", active, "grace", d.grace)
	}
	gctx, cancel := d.deadline(d.grace)
	err := d.q.Wait(gctx)
	cancel()
	if err != nil {
		se.Terminated = d.q.Stats().Active
		d.log.Warn("terminating local runs after the grace period", "active", se.Terminated)
		d.q.Abort()
		kctx, cancel := d.deadline(d.kill + 5*time.Second)
		if d.q.Wait(kctx) != nil {
			se.Unfinished = d.q.Stats().Active
		}
		cancel()
	}
	return se.orNil(d.q.Stats().Failed)
}

// deadline returns a context that ends once wait has passed on the
// driver's clock, or when cancel is called.
func (d *Driver) deadline(wait time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	expired := d.after(wait)
	go func() {
		select {
		case <-expired:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// orNil records the failure count and returns e, or nil when e is empty.
func (e *CloseError) orNil(failed uint64) error {
	e.Failed = int(failed)
	if e.Failed == 0 && len(e.Dropped) == 0 && e.Terminated == 0 && e.Unfinished == 0 {
		return nil
	}
	return e
}
