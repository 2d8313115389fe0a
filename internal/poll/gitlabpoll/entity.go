package gitlabpoll

import (
	"context"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/resolvers/gitlabentity"
)

// The entity stage (poll.EntityResolver). Detection already read each
// item's issue or merge request (the window's listing), its notes, its
// label events and the users and memberships of the actors of its
// changes; the stage builds the entity from those reads
// (gitlabentity.Resolver.Build) and looks up only the actors detection
// did not, two calls each. A subject whose notes or label events filled
// their page caps may have more than detection read: it is resolved from
// scratch (gitlabentity.Resolver.Resolve).

var _ poll.EntityResolver = (*Driver)(nil)

// EntitySystem implements poll.EntityResolver.
func (d *Driver) EntitySystem() string { return entity.SystemGitLab }

// Entities implements poll.EntityResolver: the cycle's resolver
// (forgepoll.Stage), building each entity from detection's reads (an
// item the cycle's discovery does not know gets an error). It writes
// nothing and never stops the cycle.
//
// With scheduled discovery, each item's receipts and active runs are
// set from the pipelines (records.go); a swept item about to be
// dispatched has them read afresh, and those of a version older than
// the window once.
func (d *Driver) Entities(ctx context.Context, items []*poll.Item) (poll.ItemResolver, error) {
	p := d.p
	r := p.entityResolver()
	build := func(ctx context.Context, ref entity.Ref, s subject) (*entity.Entity, error) {
		return p.build(ctx, r, ref, s)
	}
	older := func(ctx context.Context, s subject, e *entity.Entity, floor time.Time) error {
		return d.readOlder(ctx, p.scopeTail(s), e, floor)
	}
	return forgepoll.Stage[subject]{Name: Name, Window: &d.w, Ref: p.ref, Build: build, Refresh: p.keys.refresh,
		Remember: p.remember, Older: older, Fill: d.fillRecords}.Entities(ctx, items)
}

// AddOwnAccounts names the tool's own accounts (usernames) for the
// entities' versions (entity.ComputeVersion).
func (d *Driver) AddOwnAccounts(ids ...string) {
	d.p.entityResolver().AddOwn(ids...)
	d.p.mu.Lock()
	defer d.p.mu.Unlock()
	d.p.own = append(d.p.own, ids...)
}

// ownIDs is the tool's own usernames.
func (p *Poller) ownIDs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.own)
}

func (p *Poller) entityResolver() *gitlabentity.Resolver {
	p.seen.once.Do(func() {
		p.seen.resolver = gitlabentity.New(p.o.Client, gitlabentity.Options{Project: p.o.Project, Log: p.o.Log})
	})
	return p.seen.resolver
}

// ref is s's entity.
func (p *Poller) ref(s subject) entity.Ref {
	ref := entity.Ref{System: entity.SystemGitLab, Repo: p.o.Repo, Kind: entity.KindWorkItem}
	if s.MergeRequest != nil {
		ref.Kind, ref.ID = entity.KindChangeProposal, s.MergeRequest.IID
	} else {
		ref.ID = s.Issue.IID
	}
	return ref
}

// build builds s's entity (ref) from detection's reads, or resolves it
// when detection's reads may be incomplete.
func (p *Poller) build(ctx context.Context, r *gitlabentity.Resolver, ref entity.Ref, s subject) (*entity.Entity, error) {
	snap, known, ok := p.seen.snapshot(s)
	if !ok {
		return r.Resolve(ctx, ref)
	}
	return r.Build(ctx, ref, snap, known)
}

// sweptEntity is s's entity: the one remembered at s's updated_at, else
// resolved now (and remembered).
func (d *Driver) sweptEntity(ctx context.Context, s subject) (*entity.Entity, error) {
	p := d.p
	return p.ents.Get(ctx, s.Key(), s.updated, func(ctx context.Context) (*entity.Entity, error) {
		e, err := p.build(ctx, p.entityResolver(), p.ref(s), s)
		if err == nil && e != nil {
			p.remember(s, e)
		}
		return e, err
	})
}

// remember keeps the entity of s resolved at s's updated_at, once that
// second is complete on GitLab's clock (forgepoll.Entities.Remember).
func (p *Poller) remember(s subject, e *entity.Entity) {
	p.ents.Remember(s.Key(), s.updated, e, p.o.Now(), Resolution)
}
