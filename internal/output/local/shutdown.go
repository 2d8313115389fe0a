package local

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ShutdownError reports the work a shutdown did not complete.
type ShutdownError struct {
	Dropped    []Job // pending runs that never started
	Terminated int   // active runs stopped after the grace period
	Unfinished int   // runs still not ended after termination
}

func (e *ShutdownError) Error() string {
	var parts []string
	if n := len(e.Dropped); n > 0 {
		seqs := make([]string, n)
		for i, j := range e.Dropped {
			seqs[i] = strconv.FormatUint(j.Seq, 10)
		}
		parts = append(parts, fmt.Sprintf("dropped %d pending run(s) (seq %s)", n, strings.Join(seqs, ", ")))
	}
	if e.Terminated > 0 {
		parts = append(parts, fmt.Sprintf("terminated %d active run(s) after the grace period", e.Terminated))
	}
	if e.Unfinished > 0 {
		parts = append(parts, fmt.Sprintf("%d run(s) did not end after termination", e.Unfinished))
	}
	return "local: shutdown " + strings.Join(parts, "; ")
}

// Close stops accepting runs and finishes the accepted ones:
//
//   - while ctx is live, every accepted run — active or pending — runs to
//     its end (a one-shot `fullsend dispatch` waits for its runs);
//   - once ctx is done (a SIGINT/SIGTERM, or a caller that wants to stop
//     now and passes a cancelled context), pending runs are dropped and
//     logged, active runs get the grace period to finish, then are
//     terminated (SIGTERM, and SIGKILL after the kill delay).
//
// It returns nil when everything accepted ran, else a *ShutdownError.
func (d *Driver) Close(ctx context.Context) error {
	d.q.Close()
	if ctx.Err() == nil && d.q.Wait(ctx) == nil {
		return nil
	}
	se := &ShutdownError{}
	for _, it := range d.q.Stop() {
		se.Dropped = append(se.Dropped, it.Item)
		d.log.Warn("local run dropped at shutdown", "harness", it.Item.Run.Harness,
			"key", string(it.Key), "seq", it.Item.Seq)
	}
	active := d.q.Stats().Active
	if active > 0 {
		d.log.Info("waiting for active local runs", "active", active, "grace", d.grace.String())
	}
	gctx, cancel := context.WithTimeout(context.Background(), d.grace)
	err := d.q.Wait(gctx)
	cancel()
	if err != nil {
		se.Terminated = d.q.Stats().Active
		d.log.Warn("terminating local runs after the grace period", "active", se.Terminated)
		d.q.Abort()
		kctx, cancel := context.WithTimeout(context.Background(), d.kill+5*time.Second)
		if d.q.Wait(kctx) != nil {
			se.Unfinished = d.q.Stats().Active
		}
		cancel()
	}
	if len(se.Dropped) == 0 && se.Terminated == 0 {
		return nil
	}
	return se
}
