package jirapoll

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/quarantine"
)

var _ poll.Quarantiner = (*Driver)(nil)

// Failed implements poll.Quarantiner: the attempt count lives in the
// issue's quarantine property (quarantine.Key), so it survives
// the poller and is shared by every poller of the repo. The caller holds
// the lock, so the read-modify-write does not race another poller.
func (d *Driver) Failed(ctx context.Context, it *poll.Item, p poll.Poison) (int, error) {
	q, err := d.readQuarantine(ctx, it.ID)
	if err != nil {
		return 0, err
	}
	n := q.Fail(p.Harness, p.Change, p.Reason, d.o.Now())
	return n, d.writeQuarantine(ctx, it.ID, q)
}

// Quarantine implements poll.Quarantiner: p is appended to the issue's
// quarantine property.
func (d *Driver) Quarantine(ctx context.Context, it *poll.Item, p poll.Poison, attempts int) error {
	q, err := d.readQuarantine(ctx, it.ID)
	if err != nil {
		return err
	}
	q.Add(quarantine.Entry{Change: p.Change, Harness: p.Harness, At: p.At.UTC(), TS: d.o.Now().UTC(),
		Reason: p.Reason, Attempts: attempts})
	return d.writeQuarantine(ctx, it.ID, q)
}

// readQuarantine reads the quarantine record; a missing one is
// empty and a corrupt one is logged and started afresh.
func (d *Driver) readQuarantine(ctx context.Context, key string) (quarantine.Quarantine, error) {
	prop := quarantine.Key(d.o.Repo)
	raw, found, err := d.o.API.GetProperty(ctx, key, prop)
	if err != nil {
		return quarantine.Quarantine{}, fmt.Errorf("reading %s on %s: %w", prop, key, err)
	}
	if !found {
		return quarantine.Quarantine{}, nil
	}
	q, err := quarantine.Parse(raw)
	if err != nil {
		d.o.Log.Warn("corrupt quarantine value; starting a new record", "issue", key, "property", prop, "error", err.Error())
		return quarantine.Quarantine{}, nil
	}
	return q, nil
}

func (d *Driver) writeQuarantine(ctx context.Context, key string, q quarantine.Quarantine) error {
	prop := quarantine.Key(d.o.Repo)
	if err := d.o.API.SetProperty(ctx, key, prop, json.RawMessage(q.Marshal())); err != nil {
		return fmt.Errorf("writing %s on %s: %w", prop, key, err)
	}
	return nil
}
