package jirapoll

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// lockValue is the lock this cycle writes on it: its lock id, phase and
// refs, and the checkpoint the dispatch starts from (From: where a
// give-back rewinds to, should no run claim the lock).
func (d *Driver) lockValue(it *poll.Item, phase string, refs []plan.Ref) json.RawMessage {
	return polllock.Lock{ID: d.issue(it.ID).lockID, TS: d.o.Now(), Phase: phase, Runs: refs, From: position(it.Base), Gone: it.GoneLocks,
		Entity: it.EntityRuns}.Marshal()
}

// taken records the outcome of the consistent read before the lock write:
// the view's checkpoint (rewound when the lock read is owed a give-back).
// A checkpoint older than the one the changes were detected from (a
// give-back discovery's lagging search did not show) skips the item: the
// next cycle detects from it.
// The read (lr: the lock value and when the read was sent) is kept for a
// takeover, which must write within the claim window of it (takeOver).
func (d *Driver) taken(it *poll.Item, v view, lr lockRead) {
	if v.base.Min().Before(it.Base.Min()) {
		it.Skip()
		return
	}
	it.Base, it.StaleLock, it.TakenOver, it.GoneLocks = v.base, v.expired, v.takeover, v.gone
	st := d.issue(it.ID)
	st.giveBack, st.owed = v.giveBack, v.giveBack != nil
	d.noteRead(it.ID, v.takeover, lr)
}

// Acquire implements poll.Driver: one lock write per issue, in parallel,
// listing the item's planned runs; a takeover's within the claim window
// (takeOver).
func (d *Driver) Acquire(ctx context.Context, items []*poll.Item) error {
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		if ctx.Err() != nil || stop.get() != nil || it.State() != poll.StateSelected {
			return
		}
		it.Attempt()
		st := d.issue(it.ID)
		d.remember(st.id)
		st.lockID = polllock.NewLockID(d.o.PollerID)
		if it.TakenOver {
			d.takeOver(ctx, it, &stop)
			return
		}
		err := d.o.API.SetProperty(ctx, it.ID, d.lockKey, d.lockValue(it, polllock.PhasePending, it.Planned))
		if err != nil {
			classifyErr(it, "writing the poll lock", err, &stop)
			return
		}
		it.Hold()
	})
	return stop.get()
}

// Recheck implements poll.Driver with one reconciled (strongly
// consistent) search over the selected issues, because discovery's search
// may lag behind other pollers' writes: issues now locked or no longer
// changed are skipped, and the others' checkpoint is refreshed. When Jira
// rejects the read (an issue was deleted, so its key no longer validates)
// each item's properties are read on their own: discovery's view may lag
// behind another poller's lock, which must not be overwritten.
func (d *Driver) Recheck(ctx context.Context, items []*poll.Item) error {
	at := d.o.Now() // the read is sent after this: a takeover's claim window starts here
	found, err := d.reconciled(ctx, items, []string{"updated", "created"})
	switch {
	case jira.IsBadRequest(err):
		d.o.Log.Info("consistent re-read before locking rejected; re-reading each issue", "error", err.Error())
		return d.recheckEach(ctx, items)
	case jira.IsAuth(err):
		return fmt.Errorf("re-reading issues before locking: %w: %w", poll.ErrAuth, err)
	case err != nil:
		return fmt.Errorf("re-reading issues before locking: %w", err)
	}
	now := d.o.Now()
	for _, it := range items {
		is, ok := found[it.ID]
		if !ok {
			it.Vanish()
			continue
		}
		v := d.look(is, now)
		if v.locked || !v.changed && (!it.Swept || sweptOut(v)) {
			it.Skip()
			continue
		}
		it.Receipts = d.receiptsOf(it.ID, is.Properties[d.receiptsKey])
		// The cutoff stays discovery's: the changes were detected up to it,
		// and later ones are left for the next cycle.
		d.taken(it, v, lockRead{raw: is.Properties[d.lockKey], at: at})
	}
	return nil
}

// recheckEach is recheck with two property reads per item; an item whose
// reads fail is skipped (Item.Err) and a vanished one is Gone. The update
// time stays discovery's.
func (d *Driver) recheckEach(ctx context.Context, items []*poll.Item) error {
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		if ctx.Err() != nil || stop.get() != nil {
			return
		}
		at := d.o.Now()
		lock, check, err := d.readProps(ctx, it.ID)
		if err != nil {
			classifyErr(it, "re-reading the issue before locking", err, &stop)
			return
		}
		now := d.o.Now()
		base, _ := d.checkpoint(it.ID, check, now)
		v := judge(d.lockView(it.ID, lock, now), base, it.Cutoff)
		if v.locked || !v.changed && (!it.Swept || sweptOut(v)) {
			it.Skip()
			return
		}
		d.taken(it, v, lockRead{raw: lock, at: at})
	})
	if err := stop.get(); err != nil {
		return err
	}
	return ctx.Err()
}

// readProps reads the lock and lastCheck properties of issue (each nil
// when absent) with two strongly consistent reads.
func (d *Driver) readProps(ctx context.Context, issue string) (lock, check json.RawMessage, err error) {
	lock, _, err = d.o.API.GetProperty(ctx, issue, d.lockKey)
	if err == nil {
		check, _, err = d.o.API.GetProperty(ctx, issue, d.checkKey)
	}
	return lock, check, err
}

// reconciled reads items with one search per 50 that Jira answers from
// current data (reconcileIssues), keyed by issue key.
func (d *Driver) reconciled(ctx context.Context, items []*poll.Item, fields []string) (map[string]jira.Issue, error) {
	out := make(map[string]jira.Issue, len(items))
	items = handleable(items) // Detect failed the others already
	for start := 0; start < len(items); start += maxReconcile {
		chunk := items[start:min(start+maxReconcile, len(items))]
		keys := make([]string, len(chunk))
		ids := make([]int64, len(chunk))
		for i, it := range chunk {
			keys[i], ids[i] = it.ID, d.issue(it.ID).id
		}
		jql, err := jira.KeyIn(keys)
		if err != nil {
			return nil, err
		}
		req := jira.SearchRequest{JQL: jql, Fields: fields, Properties: []string{d.lockKey, d.checkKey, d.receiptsKey},
			MaxResults: len(keys), ReconcileIssues: ids}
		found, err := d.o.API.Search(ctx, req, len(keys))
		if err != nil {
			return nil, err
		}
		for _, is := range found {
			out[is.Key] = is
		}
	}
	return out, nil
}
