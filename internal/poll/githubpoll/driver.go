package githubpoll

import (
	"context"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Driver runs a Poller in the poll cycle (poll.Driver). GitHub offers no
// cheap lock, so the lock stages are poll.NoLocks; the gha-dispatch output
// settles each run it starts against the other runs of its change
// (ghadispatch.Settle). An item's checkpoint is the newest change
// position (time, then id) a run of its scope records (any harness),
// read from the run list; Advance only remembers, in memory, that the
// item was handled at its updated_at, and so does Detect for an item none
// of whose changes is after its checkpoint (the event path dispatched
// them).
type Driver struct {
	poll.NoLocks // coordination happens at dispatch (ghadispatch.Settle)
	p            *Poller
	usage        func() poll.Usage

	mu    sync.Mutex
	items map[string]subject
	// newest is, per item, the position of its newest change in the
	// cycle's window (Detect): Advance takes the item as handled only
	// for a checkpoint at or after it.
	newest           map[string]changepos.Pos
	floor            time.Time
	lk               *lookups
	own              ownAccounts // the entity stage's (entity.go)
	poll.SweepSwitch             // scheduled discovery (Sweeper)
}

var _ poll.Driver = (*Driver)(nil)

// NewDriver returns the cycle driver of p; usage reports API calls.
func NewDriver(p *Poller, usage func() poll.Usage) *Driver {
	if usage == nil {
		usage = func() poll.Usage { return poll.Usage{} }
	}
	return &Driver{p: p, usage: usage, items: map[string]subject{}}
}

// Name returns "github-poll".
func (d *Driver) Name() string { return Name }

// TrackerNow implements poll.TrackerClock: the forge's time (Options.Now).
func (d *Driver) TrackerNow() time.Time { return d.p.o.Now() }

// Usage implements poll.Driver.
func (d *Driver) Usage() poll.Usage { return d.usage() }

// Discover reads the window (three conditional listings); only when an
// issue or pull request changed since this poller handled it, or a run
// of the last run list had not completed (due), does it read the run
// list, to set each item's checkpoint. With scheduled discovery
// on (EnableSweep) it also reads the sweep's page and hands the
// candidates with no change to handle to the cycle (sweep.go).
func (d *Driver) Discover(ctx context.Context) (*poll.Discovery, error) {
	p := d.p
	fetched := p.fetchedCount()
	floor, cutoff := p.window()
	subs, err := p.scan(ctx, floor)
	if err != nil {
		return nil, refused(err)
	}
	disc := &poll.Discovery{Candidates: len(subs)}
	todo, err := p.due(ctx, subs, floor)
	if err != nil {
		return nil, err
	}
	sweep := d.SweepOn()
	if len(todo) == 0 && !sweep {
		return disc, nil
	}
	d.mu.Lock()
	d.floor, d.items, d.lk = floor, map[string]subject{}, newLookups(p.o.Client)
	d.newest = map[string]changepos.Pos{}
	for _, s := range todo {
		base := changepos.At(floor)
		if pos := p.keys.newest(s.tail(p.o.Repo)); pos.After(base) {
			base = pos
		}
		d.items[s.key()] = s
		disc.Eligible = append(disc.Eligible, &poll.Item{ID: s.key(), Base: poll.Checkpoint{At: base.At, ID: base.ID},
			Cutoff: minTime(s.updated, cutoff), Waiting: s.updated})
	}
	d.mu.Unlock()
	if sweep {
		if err := d.swept(ctx, disc, subs, todo, cutoff, fetched, len(todo) > 0); err != nil {
			return nil, err
		}
	}
	return disc, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// Detect reads each item's changes after its checkpoint, up to its
// cutoff (poll.Item.InWindow), mapping only those. An item with no change
// after its checkpoint and none left for later is handled (the runs of
// the event path record every change it has): the next cycle skips it
// until it changes, with no run list or role lookup.
func (d *Driver) Detect(ctx context.Context, items []*poll.Item) error {
	for _, it := range items {
		d.mu.Lock()
		s, floor, lk := d.items[it.ID], d.floor, d.lk
		d.mu.Unlock()
		it.Changes = nil
		window := it.Filter()
		chs, err := d.p.changes(ctx, lk, s, floor, window.Keep)
		if err != nil {
			it.Fail(err)
			continue
		}
		it.Changes = chs
		if len(chs) == 0 && !window.Later() {
			d.handle(s, it.Cutoff)
			continue
		}
		if n := len(chs); n > 0 {
			d.mu.Lock()
			d.newest[it.ID] = chs[n-1].Pos()
			d.mu.Unlock()
		}
	}
	return nil
}

// Advance remembers that the item was handled, so that the next cycle
// skips it until it changes: only for a checkpoint that covers the item's
// newest change (poll.Checkpoint.Covers; not the intents the cycle
// records before dispatching). An item with changes left for later
// (younger than Grace) is read again.
func (d *Driver) Advance(_ context.Context, it *poll.Item, cp poll.Checkpoint) error {
	d.mu.Lock()
	s, ok := d.items[it.ID]
	newest := d.newest[it.ID]
	d.mu.Unlock()
	if ok && cp.Covers(newest) {
		d.handle(s, it.Cutoff)
	}
	return nil
}

// handle records s as handled at its updated_at, unless that is after
// cutoff (a change of it may be left for later).
func (d *Driver) handle(s subject, cutoff time.Time) {
	if s.updated.After(cutoff) {
		return
	}
	d.p.mu.Lock()
	d.p.handled[s.number()] = s.updated
	d.p.mu.Unlock()
}
