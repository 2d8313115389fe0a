package githubpoll

import (
	"context"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Driver runs a Poller in the poll cycle (poll.Driver). GitHub offers no
// cheap lock, so the lock stages are poll.NoLocks; the gha-dispatch output
// settles each run it starts against the other runs of its change
// (ghadispatch.Settle). An item's checkpoint is the newest change a run
// of its scope records (any harness), read from the run list; Advance
// only remembers, in memory, that the item was handled at its
// updated_at.
type Driver struct {
	poll.NoLocks // coordination happens at dispatch (ghadispatch.Settle)
	p            *Poller
	usage        func() poll.Usage

	mu               sync.Mutex
	items            map[string]subject
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
// issue or pull request changed since this poller handled it does it read
// the run list, to set each item's checkpoint. With scheduled discovery
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
	var todo []subject
	p.mu.Lock()
	for _, s := range subs {
		if t, ok := p.handled[s.number()]; !ok || s.updated.After(t) {
			todo = append(todo, s)
		}
	}
	p.mu.Unlock()
	sweep := d.SweepOn()
	if len(todo) == 0 && !sweep {
		return disc, nil
	}
	if len(todo) > 0 {
		if err := p.keys.refresh(ctx, floor); err != nil {
			return nil, err
		}
	}
	d.mu.Lock()
	d.floor, d.items, d.lk = floor, map[string]subject{}, newLookups(p.o.Client)
	for _, s := range todo {
		base := floor
		if t := p.keys.newest(s.tail(p.o.Repo)); t.After(base) {
			base = t
		}
		d.items[s.key()] = s
		disc.Eligible = append(disc.Eligible, &poll.Item{ID: s.key(), Base: poll.Checkpoint{At: base},
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

// Detect reads each item's changes after its checkpoint, up to its cutoff.
func (d *Driver) Detect(ctx context.Context, items []*poll.Item) error {
	for _, it := range items {
		d.mu.Lock()
		s, floor, lk := d.items[it.ID], d.floor, d.lk
		d.mu.Unlock()
		chs, err := d.p.changes(ctx, lk, s, floor)
		if err != nil {
			it.Fail(err)
			continue
		}
		it.Changes = nil
		for _, c := range chs {
			if c.At.After(it.Base.Min()) && !c.At.After(it.Cutoff) {
				it.Changes = append(it.Changes, c)
			}
		}
	}
	return nil
}

// Advance remembers that the item was handled, so that the next cycle
// skips it until it changes. An item with changes left for later
// (younger than Grace) is read again.
func (d *Driver) Advance(_ context.Context, it *poll.Item, cp poll.Checkpoint) error {
	d.mu.Lock()
	s, ok := d.items[it.ID]
	d.mu.Unlock()
	if ok && !cp.Pending() && !s.updated.After(it.Cutoff) {
		d.p.mu.Lock()
		d.p.handled[s.number()] = s.updated
		d.p.mu.Unlock()
	}
	return nil
}
