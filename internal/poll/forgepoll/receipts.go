package forgepoll

import (
	"maps"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
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
