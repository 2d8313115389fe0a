package gitlabpoll

import (
	"context"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// Driver adapts a Poller to the poll cycle (poll.Driver), a forge
// backstop like github-poll's (forgepoll). With no cheap lock on GitLab
// its lock stages are poll.NoLocks; gitlab-pipeline settles each pipeline
// as it creates it (gitlabpipeline.Settle cancels the duplicate with the
// higher id). The checkpoint of an item is the newest change position its
// scope's pipelines record, or the newest this poller handled (a plan
// printed rather than dispatched); the cycle's window is forgepoll's.
type Driver struct {
	// usage, the forge's clock (Options.Now) and the pipelines as
	// receipts (records.go)
	forgepoll.Backstop[subject]
	w                forgepoll.Window[subject] // the cycle's subjects, from Discover
	p                *Poller
	poll.NoLocks     // coordination happens at dispatch (gitlabpipeline.Settle)
	poll.SweepSwitch // scheduled discovery (Sweeper)
}

var _ poll.Driver = (*Driver)(nil)

// NewDriver returns the cycle driver of p; usage reports API calls.
func NewDriver(p *Poller, usage func() poll.Usage) *Driver {
	d := &Driver{p: p}
	d.Backstop = forgepoll.NewBackstop(&d.w, &p.giveUps, p.scopeTail, func() time.Time { return p.o.Now() }, usage)
	return d
}

// Name returns "gitlab-poll".
func (d *Driver) Name() string { return Name }

// Discover lists the window; only when something is new does it read the
// pipeline list to set each item's checkpoint. With scheduled discovery
// on (EnableSweep) it also reads the sweep's page and hands the
// candidates with no change to handle to the cycle (sweep.go).
func (d *Driver) Discover(ctx context.Context) (*poll.Discovery, error) {
	p := d.p
	p.seen.reset() // detection and the entity stage reuse this cycle's reads only
	now := p.o.Now()
	since, cutoff := now.Add(-p.o.Lookback).UTC(), p.cutoff(now)
	subs, err := p.subjects(ctx, since)
	if err != nil {
		return nil, err
	}
	disc := &poll.Discovery{Candidates: len(subs)}
	todo := p.unhandled(subs)
	sweep := d.SweepOn()
	if len(todo) == 0 && !sweep {
		return disc, nil
	}
	if len(todo) > 0 {
		if err := p.keys.refresh(ctx, since); err != nil {
			return nil, err
		}
	}
	d.w.Start(since)
	disc.Eligible = d.w.Eligible(todo, cutoff, func(s subject) changepos.Pos {
		base := p.keys.newest(p.scopeTail(s))
		if pos := p.position(s.Key()); pos.After(base) {
			base = pos // handled by this poller: printed by a plan output, or dispatched
		}
		return base
	})
	p.forget(since)
	if sweep {
		if err := d.swept(ctx, disc, subs, todo, cutoff, len(todo) > 0); err != nil {
			return nil, err
		}
	}
	return disc, nil
}

// scopeTail is the subject's scope key without its harness: what every
// harness's idempotency key for it contains before "@".
func (p *Poller) scopeTail(s subject) string {
	ev, err := gitlabevent.Build(p.o.Repo, s.Subject, gitlabevent.Change{Kind: event.Opened}, event.Actor{})
	if err != nil {
		return ""
	}
	_, tail, _ := strings.Cut(string(scope.KeyOf("-", ev, "gitlab")), ":")
	return tail
}

// Detect reads each item's changes after its checkpoint, up to its
// cutoff (poll.Item.InWindow), mapping only those. An item with no change
// after its checkpoint and none left for later is handled (the pipelines
// of the webhook path record every change it has): the next cycle skips
// it until it changes, with no pipeline list or user lookup.
func (d *Driver) Detect(ctx context.Context, items []*poll.Item) error {
	return d.w.Detect(ctx, items, d.p.events, d.p.markHandled)
}

// Advance remembers that the item was handled (every harness at its
// newest position), so that the next cycle skips it until it changes,
// and then reads it from the checkpoint on: only for a checkpoint that
// covers the item's newest change (poll.Checkpoint.Covers; not the
// intents the cycle records before dispatching). An item with changes
// left for later (younger than Grace) is read again.
func (d *Driver) Advance(_ context.Context, it *poll.Item, cp poll.Checkpoint) error {
	s, ok := d.w.Covered(it, cp)
	if !ok {
		return nil
	}
	p := d.p
	p.mu.Lock()
	if cp.PosAt().After(p.done[it.ID]) {
		p.done[it.ID] = cp.PosAt()
	}
	p.mu.Unlock()
	p.markHandled(it.ID, s, it.Cutoff)
	return nil
}

// markHandled records subject s (key) as handled at its updated_at,
// unless that is after cutoff (a change of it may be left for later).
func (p *Poller) markHandled(key string, s subject, cutoff time.Time) {
	if s.updated.After(cutoff) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handled[key] = s.updated
}

// position is the newest change position of subject key this poller
// handled (zero: none).
func (p *Poller) position(key string) changepos.Pos {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done[key]
}
