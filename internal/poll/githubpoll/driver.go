package githubpoll

import (
	"context"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
)

// Driver runs a Poller in the poll cycle (poll.Driver) as a forge
// backstop (forgepoll): GitHub offers no cheap lock, so the lock stages
// are poll.NoLocks and the gha-dispatch output settles each run it starts
// against the other runs of its change (ghadispatch.Settle). An item's
// checkpoint is the newest change position (time, then id) a run of its
// scope records (any harness), read from the run list; the cycle's
// window is forgepoll's.
type Driver struct {
	poll.NoLocks     // coordination happens at dispatch (ghadispatch.Settle)
	p                *Poller
	w                forgepoll.Window[subject] // the cycle's subjects, from Discover
	mu               sync.Mutex
	lk               *lookups
	own              ownAccounts // the entity stage's (entity.go)
	poll.SweepSwitch             // scheduled discovery (Sweeper)
	// usage, the forge's clock (Options.Now) and the run records as
	// receipts (records.go)
	forgepoll.Backstop[subject]
}

var _ poll.Driver = (*Driver)(nil)

// NewDriver returns the cycle driver of p; usage reports API calls.
func NewDriver(p *Poller, usage func() poll.Usage) *Driver {
	d := &Driver{p: p}
	d.Backstop = forgepoll.NewBackstop(&d.w, &p.giveUps, func(s subject) string { return s.tail(p.o.Repo) },
		func() time.Time { return p.o.Now() }, usage)
	return d
}

// Name returns "github-poll".
func (d *Driver) Name() string { return Name }

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
	d.lk = newLookups(p.o.Client)
	d.mu.Unlock()
	d.w.Start(floor)
	disc.Eligible = d.w.Eligible(todo, cutoff, func(s subject) changepos.Pos { return p.keys.newest(s.tail(p.o.Repo)) })
	if sweep {
		if err := d.swept(ctx, disc, subs, todo, cutoff, fetched, len(todo) > 0); err != nil {
			return nil, err
		}
	}
	return disc, nil
}

// Detect reads each item's changes after its checkpoint, up to its
// cutoff (poll.Item.InWindow), mapping only those. An item with no change
// after its checkpoint and none left for later is handled (the runs of
// the event path record every change it has): the next cycle skips it
// until it changes, with no run list or role lookup.
func (d *Driver) Detect(ctx context.Context, items []*poll.Item) error {
	d.mu.Lock()
	lk := d.lk
	d.mu.Unlock()
	read := func(ctx context.Context, s subject, floor time.Time, keep func(changepos.Pos) bool) ([]poll.Change, error) {
		return d.p.changes(ctx, lk, s, floor, keep)
	}
	return d.w.Detect(ctx, items, read, func(_ string, s subject, cutoff time.Time) { d.handle(s, cutoff) })
}

// Advance remembers that the item was handled, so that the next cycle
// skips it until it changes: only for a checkpoint that covers the item's
// newest change (poll.Checkpoint.Covers; not the intents the cycle
// records before dispatching). An item with changes left for later
// (younger than Grace) is read again.
func (d *Driver) Advance(_ context.Context, it *poll.Item, cp poll.Checkpoint) error {
	if s, ok := d.w.Covered(it, cp); ok {
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
