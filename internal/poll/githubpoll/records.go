package githubpoll

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// The receipts of scheduled discovery (ARCHITECTURE.md, "GitHub
// backstop"): GitHub keeps no property of ours on an issue, so the run
// records are the receipts. A scheduled run's title carries its
// idempotency key, the scope key @ the entity version
// (reconcile.IdempotencyKey); of the runs carrying the key of the
// entity's current version, one that concluded success is the receipt,
// those that concluded otherwise are the tries, and one not completed
// makes the scope active. The run list the backstop reads covers its
// window only: for an entity whose version is older than the window's
// floor, the runs between the version's time and the floor are read
// once (readOlder, at most olderPages pages) when the entity is about
// to be dispatched, and remembered per version.

// statusCompleted is the status of a run that ended (whatever its
// conclusion).
const statusCompleted = "completed"

// conclusionSuccess is a run that succeeded.
const conclusionSuccess = "success"

// olderPages bounds the pages (100 runs each) read for the runs of one
// entity version older than the window.
const olderPages = 1

var _ poll.ReceiptKeeper = (*Driver)(nil) // forgepoll.Backstop

// fillRecords sets it.Receipts and it.Active from the run records of
// the subject s, for the version of it's entity.
func (d *Driver) fillRecords(it *poll.Item, s subject) {
	if it.Entity == nil || it.Entity.Entity == nil {
		return
	}
	tail := s.tail(d.p.o.Repo)
	k := d.p.keys
	k.mu.Lock()
	byHarness := k.byTail[tail]
	k.mu.Unlock()
	all := map[string][]reconcile.Attempt{}
	for h, rs := range byHarness {
		for _, r := range rs {
			all[h] = append(all[h], r.attempt())
		}
	}
	for h, as := range d.p.older.Of(tail, it.Entity.Entity.Version) {
		all[h] = append(all[h], as...)
	}
	forgepoll.Fill(it, tail, all, &d.p.giveUps, runRef)
}

// attempt is the run as an attempt of its key's scope.
func (r runInfo) attempt() reconcile.Attempt {
	return reconcile.Attempt{ID: r.id, Suffix: r.suffix, Done: r.status == statusCompleted,
		Succeeded: r.conclusion == conclusionSuccess, At: r.updated}
}

// runRef is the receipt's run reference.
func runRef(id int64) string { return "gha-dispatch/" + strconv.FormatInt(id, 10) }

// readOlder reads, once per version, the runs of the run workflow
// created between the version's time and the window's floor, and
// remembers those of tail's scope (forgepoll.Older). It reads nothing
// when the version is newer than the floor (the window's run list holds
// all its runs).
func (d *Driver) readOlder(ctx context.Context, tail string, e *entity.Entity, floor time.Time) error {
	p := d.p
	return p.older.Read(ctx, tail, e, d.ownIDs(), floor, func(ctx context.Context, from time.Time) (forgepoll.OlderRecords, error) {
		runs, err := p.readRuns(ctx, p.keys.runsURL(from.Add(-time.Second), floor), olderPages)
		if err != nil {
			return forgepoll.OlderRecords{}, err
		}
		got := forgepoll.OlderRecords{Attempts: map[string][]reconcile.Attempt{}, Complete: true}
		for _, r := range runs {
			for _, f := range strings.Fields(r.GetDisplayTitle()) {
				h, t, suffix, ok := reconcile.SplitScoped(f)
				if !ok || t != tail || suffix != e.Version {
					continue
				}
				ri := infoOf(r, suffix)
				got.Complete = got.Complete && ri.status == statusCompleted
				got.Attempts[h] = append(got.Attempts[h], ri.attempt())
			}
		}
		return got, nil
	})
}
