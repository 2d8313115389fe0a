package jirapoll

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
)

var _ poll.ReceiptKeeper = (*Driver)(nil)

// receiptsOf decodes an issue's receipts property (receipts.Receipts); a
// missing one is empty. What cannot be read is logged and kept as it is
// (receipts.Parse): its harnesses get no scheduled run until it
// is replaced, and no write erases it.
func (d *Driver) receiptsOf(key string, raw json.RawMessage) receipts.Receipts {
	rs, err := receipts.Parse(raw)
	if err != nil {
		d.o.Log.Warn("corrupt receipts value; what can be read is used, the rest kept as it is", "issue", key,
			"property", d.receiptsKey, "error", err.Error())
	}
	return rs
}

// rereadReceipts is the receipts half of an item's verification when it
// is read property by property.
func (d *Driver) rereadReceipts(ctx context.Context, it *poll.Item, stop *firstErr) {
	raw, _, err := d.o.API.GetProperty(ctx, it.ID, d.receiptsKey)
	if err != nil {
		classifyErr(it, "reading the receipts", err, stop)
		return
	}
	it.Receipts = d.receiptsOf(it.ID, raw)
}

// Tried implements poll.ReceiptKeeper: one write of the issue's receipts
// property, the caller holding the issue's lock (so no poller races it,
// and no run of the issue writes it meanwhile).
func (d *Driver) Tried(ctx context.Context, it *poll.Item, runs map[string]polllock.EntityRun) error {
	return d.updateReceipts(ctx, it, func(rs receipts.Receipts) {
		lock := d.issue(it.ID).lockID
		for h, er := range runs {
			rs.Tried(h, er.Version, lock, d.o.Now())
		}
	})
}

// GaveUp implements poll.ReceiptKeeper.
func (d *Driver) GaveUp(ctx context.Context, it *poll.Item, harness, version string) error {
	return d.updateReceipts(ctx, it, func(rs receipts.Receipts) { rs.Quarantined(harness, version) })
}

// updateReceipts changes and writes the issue's receipts, from the value
// the verification read consistently (Item.Receipts: the caller holds
// the lock since, so no poller or run wrote them), else from a read; the
// new value is kept on the item.
func (d *Driver) updateReceipts(ctx context.Context, it *poll.Item, change func(receipts.Receipts)) error {
	rs := it.Receipts
	if rs == nil {
		raw, _, err := d.o.API.GetProperty(ctx, it.ID, d.receiptsKey)
		if err != nil {
			return fmt.Errorf("reading %s on %s: %w", d.receiptsKey, it.ID, err)
		}
		rs = d.receiptsOf(it.ID, raw)
	} else {
		rs = maps.Clone(rs)
	}
	if rs.Unreadable() {
		return fmt.Errorf("%s on %s is not a receipts object: not overwritten (it may hold other harnesses' tries)", d.receiptsKey, it.ID)
	}
	change(rs)
	if err := d.o.API.SetProperty(ctx, it.ID, d.receiptsKey, json.RawMessage(rs.Marshal())); err != nil {
		return fmt.Errorf("writing %s on %s: %w", d.receiptsKey, it.ID, err)
	}
	it.Receipts = rs
	return nil
}
