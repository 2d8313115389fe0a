package lastcheck

import (
	"time"

	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// An intent is written into the lastCheck document, with a consistent
// write, right before a poller dispatches a harness's run, and cleared by
// the checkpoint that follows the dispatch. It lives in lastCheck rather
// than in the lock because a run that ends deletes the lock: a poller
// killed between the dispatch and the checkpoint would otherwise leave no
// trace of the dispatch once the run is over. A poller that finds an
// intent in lastCheck while it holds the item's lock knows the previous
// holder died (or failed) before checkpointing, and asks the execution
// platform whether a run carrying the intent's key exists before
// dispatching again (docs/polling.md, "Delivery contract").

// Intent records a dispatch about to be made for one harness.
type Intent struct {
	// Key is the idempotency key the dispatched run carries (changepos.KeyAt).
	Key string `json:"key"`
	// Change is the time of the newest change the run was dispatched for:
	// once the run is found, the harness's position advances to it.
	Change time.Time `json:"change"`
	// TS is when the intent was written (the poller's clock): the run, if
	// it was started, was created at or after it.
	TS time.Time `json:"ts"`
	// Lock is the id of the lock the run was dispatched under (absent in
	// intents of older pollers): once that lock is taken over unclaimed
	// (Lock.Gone of the taker's lock), the run cannot start any more.
	Lock string `json:"lock,omitempty"`
}

// Future reports whether the intent carries a time from the future
// (Ahead): its ts or its change. Such an intent is not believed: it says
// nothing of a dispatch, and believing it would keep its item out of
// every cycle (too young to settle) or move a checkpoint past changes to
// come.
func (in Intent) Future(now time.Time) bool {
	return trackerclock.Ahead(in.TS, now) || trackerclock.Ahead(in.Change, now)
}

// UTCIntents returns intents with every time in UTC at millisecond
// precision (as written), or nil when there are none.
func UTCIntents(in map[string]Intent) map[string]Intent {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]Intent, len(in))
	for h, it := range in {
		it.Change = it.Change.UTC()
		it.TS = it.TS.UTC().Truncate(time.Millisecond)
		out[h] = it
	}
	return out
}
