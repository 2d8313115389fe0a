package githubpoll

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
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
// once (olderRuns, at most olderPages pages) when the entity is about
// to be dispatched, and remembered per version.

// statusCompleted is the status of a run that ended (whatever its
// conclusion).
const statusCompleted = "completed"

// conclusionSuccess is a run that succeeded.
const conclusionSuccess = "success"

// olderPages bounds the pages (100 runs each) read for the runs of one
// entity version older than the window.
const olderPages = 1

// maxRemembered bounds the versions whose older runs are remembered
// (past that they start afresh: a version then costs one more read).
const maxRemembered = 10000

var _ poll.ReceiptKeeper = (*Driver)(nil)

// Tried implements poll.ReceiptKeeper: nothing to write, the dispatched
// run's title is the try.
func (d *Driver) Tried(context.Context, *poll.Item, map[string]polllock.EntityRun) error { return nil }

// GaveUp implements poll.ReceiptKeeper: the version is remembered as
// quarantined for the harness (in memory and the state directory), so
// that it is given up on once; the cycle logged and counted it.
func (d *Driver) GaveUp(_ context.Context, it *poll.Item, harness, version string) error {
	d.mu.Lock()
	s, ok := d.items[it.ID]
	d.mu.Unlock()
	if !ok {
		return nil
	}
	p := d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.quarantined.Add(reconcile.GiveUpKey(harness, s.tail(p.o.Repo), version), p.o.Now().UTC())
	return nil
}

// fillRecords sets it.Receipts and it.Active from the run records of
// the subject s, for the version of it's entity.
func (d *Driver) fillRecords(it *poll.Item, s subject) {
	if it.Entity == nil || it.Entity.Entity == nil {
		return
	}
	tail := s.tail(d.p.o.Repo)
	version := it.Entity.Entity.Version
	k := d.p.keys
	k.mu.Lock()
	byHarness := k.byTail[tail]
	k.mu.Unlock()
	older := d.p.olderOf(tail, version)
	all := map[string][]runInfo{}
	for h, rs := range byHarness {
		all[h] = append(all[h], rs...)
	}
	for h, rs := range older {
		all[h] = append(all[h], rs...)
	}
	it.Receipts, it.Active = receipts.Receipts{}, map[string]bool{}
	for h, rs := range all {
		rec, active := d.recordOf(h, tail, version, rs)
		it.Receipts[h] = rec
		if active {
			it.Active[h] = true
		}
	}
}

// recordOf is harness h's record on the scope tail for version, from
// its runs (reconcile.RecordOf), and whether a run of the scope is not
// completed.
func (d *Driver) recordOf(h, tail, version string, rs []runInfo) (receipts.HarnessRecord, bool) {
	as := make([]reconcile.Attempt, 0, len(rs))
	for _, r := range rs {
		as = append(as, reconcile.Attempt{ID: r.id, Suffix: r.suffix, Done: r.status == statusCompleted,
			Succeeded: r.conclusion == conclusionSuccess, At: r.updated})
	}
	p := d.p
	p.mu.Lock()
	q := p.quarantined.Has(reconcile.GiveUpKey(h, tail, version))
	p.mu.Unlock()
	return reconcile.RecordOf(version, as, q, runRef)
}

// runRef is the receipt's run reference.
func runRef(id int64) string { return "gha-dispatch/" + strconv.FormatInt(id, 10) }

// olderOf is the remembered runs of tail's version older than the
// window, by harness (nil when they were not read).
func (p *Poller) olderOf(tail, version string) map[string][]runInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.older[tail+"@"+version].runs
}

// olderRuns is what readOlder found of one version.
type olderRuns struct {
	runs     map[string][]runInfo
	complete bool // every run had completed: no need to read again
}

// readOlder reads, once per version, the runs of the run workflow
// created between the version's time and the window's floor, and
// remembers those of tail's scope. It reads nothing when the version is
// newer than the floor (the window's run list holds all its runs).
func (d *Driver) readOlder(ctx context.Context, tail string, e *entity.Entity, floor time.Time) error {
	p := d.p
	from := reconcile.VersionTime(e, d.ownIDs())
	key := tail + "@" + e.Version
	p.mu.Lock()
	prev, done := p.older[key]
	p.mu.Unlock()
	if done && prev.complete || !from.Before(floor) {
		return nil
	}
	runs, err := p.readRuns(ctx, p.keys.runsURL(from.Add(-time.Second), floor), olderPages)
	if err != nil {
		return err
	}
	got := map[string][]runInfo{}
	complete := true
	for _, r := range runs {
		for _, f := range strings.Fields(r.GetDisplayTitle()) {
			h, t, suffix, ok := reconcile.SplitScoped(f)
			if !ok || t != tail || suffix != e.Version {
				continue
			}
			ri := infoOf(r, suffix)
			complete = complete && ri.status == statusCompleted
			got[h] = append(got[h], ri)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.older) >= maxRemembered {
		p.older = map[string]olderRuns{}
	}
	p.older[key] = olderRuns{runs: got, complete: complete} // a run still going: read again next time
	return nil
}
