package forgepoll

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// GiveUps is the entity versions given up on, per harness and scope
// (reconcile.GiveUpKey), kept in memory and the state directory: a lost
// state has such a version tried again (entity.retry.max more runs),
// never lost. Safe for concurrent use; the zero value is empty.
type GiveUps struct {
	mu sync.Mutex
	g  reconcile.GiveUps
}

// Add records "harness:tail@version" as given up on at t.
func (q *GiveUps) Add(harness, tail, version string, t time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.g.Add(reconcile.GiveUpKey(harness, tail, version), t)
}

// Has reports whether key ("harness:tail@version") was given up on.
func (q *GiveUps) Has(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.g.Has(key)
}

// Restore keeps a saved give-up (the state directory's).
func (q *GiveUps) Restore(key string, t time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.g.Restore(key, t)
}

// Saved is a copy of the give-ups (for the state directory).
func (q *GiveUps) Saved() reconcile.GiveUps {
	q.mu.Lock()
	defer q.mu.Unlock()
	return maps.Clone(q.g)
}

// Records are the receipts of scheduled discovery on a forge, which
// keeps no property of ours on an issue: the dispatched runs are the
// records (poll.ReceiptKeeper). A try is the run itself, so Tried writes
// nothing; a version given up on is remembered in the GiveUps.
type Records[S Subject] struct {
	w    *Window[S]
	q    *GiveUps
	tail func(S) string
	now  func() time.Time
}

// NewRecords returns the receipt keeper over w's subjects: tail is a
// subject's scope key without its harness, now the forge's clock.
func NewRecords[S Subject](w *Window[S], q *GiveUps, tail func(S) string, now func() time.Time) Records[S] {
	return Records[S]{w: w, q: q, tail: tail, now: now}
}

var _ poll.ReceiptKeeper = Records[Subject]{}

// Tried implements poll.ReceiptKeeper: nothing to write, the dispatched
// run is the try.
func (Records[S]) Tried(context.Context, *poll.Item, map[string]polllock.EntityRun) error { return nil }

// GaveUp implements poll.ReceiptKeeper: the version is remembered as
// given up on for the harness (in memory and the state directory), so
// that it is given up on once; the cycle logged and counted it.
func (r Records[S]) GaveUp(_ context.Context, it *poll.Item, harness, version string) error {
	s, ok := r.w.Subject(it.ID)
	if !ok {
		return nil
	}
	r.q.Add(harness, r.tail(s), version, r.now().UTC())
	return nil
}

// Fill sets it.Receipts and it.Active from the attempts by harness of
// the scope tail (reconcile.RecordOf for the version of it's entity, the
// versions given up on in q, ref naming a receipt's run), when it has an
// entity.
func Fill(it *poll.Item, tail string, all map[string][]reconcile.Attempt, q *GiveUps, ref func(int64) string) {
	if it.Entity == nil || it.Entity.Entity == nil {
		return
	}
	version := it.Entity.Entity.Version
	it.Receipts, it.Active = receipts.Receipts{}, map[string]bool{}
	for h, as := range all {
		rec, active := reconcile.RecordOf(version, as, q.Has(reconcile.GiveUpKey(h, tail, version)), ref)
		it.Receipts[h] = rec
		if active {
			it.Active[h] = true
		}
	}
}
