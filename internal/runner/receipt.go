package runner

import (
	"context"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
)

// receiptTries bounds the rewrites of a success receipt lost to another
// run of the same lock writing the receipts at the same time.
const receiptTries = 3

// RecordSuccess writes the success receipt of harness's run on the
// lock's item (receipts.KeyOf, receipts.Receipts.Succeeded): the
// entity version the poller dispatched the run for, as the lock records
// it (Lock.Entity), this run's reference and the tracker's time. It is
// called at teardown, before the lock is released, and only when the
// agent succeeded: a receipt is evidence of success and nothing else.
// written is false, with no error, when there is nothing to record: the
// lock no longer carries this run's id (the run's change was given back),
// or it names no entity version for harness (an event-only harness).
//
// Runs of other harnesses dispatched under the same lock may write the
// receipts at the same time: when the lock lists other runs, the write is
// confirmed after polllock.ClaimWaitFor (each writer writes within that
// time of its read, so a lost write is seen) and made again on a fresh
// read when it was lost.
func (l *Locker) RecordSuccess(ctx context.Context, harness string) (r receipts.Receipt, written bool, err error) {
	o, err := l.read(ctx)
	if err != nil || !o.ours {
		return receipts.Receipt{}, false, err
	}
	er, ok := o.lock.Entity[harness]
	if !ok || er.Version == "" {
		return receipts.Receipt{}, false, nil
	}
	prop, ok := receipts.KeyOf(l.Property)
	if !ok {
		return receipts.Receipt{}, false, fmt.Errorf("poll lock property %s: not a lock key, no receipts beside it", l.Property)
	}
	shared := len(polllock.Others(o.lock.Runs, l.Run)) > 0
	for range receiptTries {
		if r, err = l.writeReceipt(ctx, prop, harness, er.Version); err != nil {
			return r, false, err
		}
		if !shared {
			return r, true, nil
		}
		if err := l.Sleep(ctx, polllock.ClaimWaitFor(l.StaleThreshold)); err != nil {
			return r, true, nil // written; only the confirmation was cut short
		}
		rs, err := l.readReceipts(ctx, prop)
		if err != nil {
			return r, true, err
		}
		if s := rs[harness].Success; s != nil && s.Version == er.Version && s.Run == r.Run {
			return r, true, nil
		}
	}
	return r, false, fmt.Errorf("receipt of %s on %s: overwritten %d times by concurrent writers", harness, l.Issue, receiptTries)
}

// writeReceipt reads the receipts, records the success and writes them.
func (l *Locker) writeReceipt(ctx context.Context, prop, harness, version string) (receipts.Receipt, error) {
	rs, err := l.readReceipts(ctx, prop)
	if err != nil {
		return receipts.Receipt{}, err
	}
	if rs.Unreadable() {
		return receipts.Receipt{}, fmt.Errorf("%s on %s is not a receipts object: not overwritten (it may hold other harnesses' tries)", prop, l.Issue)
	}
	r := rs.Succeeded(harness, version, runName(l.Run.Driver, l.Run.ID), l.Now())
	if err := l.Store.Put(ctx, l.Issue, prop, rs.Marshal()); err != nil {
		return r, fmt.Errorf("write %s on %s: %w", prop, l.Issue, err)
	}
	return r, nil
}

// readReceipts reads the receipts property; a missing one is empty. What
// cannot be read is kept as it is (receipts.Parse), so that
// writing this run's receipt erases no other harness's record.
func (l *Locker) readReceipts(ctx context.Context, prop string) (receipts.Receipts, error) {
	raw, found, err := l.Store.Get(ctx, l.Issue, prop)
	if err != nil {
		return nil, fmt.Errorf("read %s on %s: %w", prop, l.Issue, err)
	}
	if !found {
		return receipts.Receipts{}, nil
	}
	rs, _ := receipts.Parse(raw)
	return rs, nil
}

// runName is a run's reference in a receipt: driver/id, or the driver
// alone when the platform gave no id.
func runName(driver, id string) string {
	if driver == "" {
		driver = "run"
	}
	if id == "" {
		return driver
	}
	return driver + "/" + id
}
