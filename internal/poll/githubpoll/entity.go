package githubpoll

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/resolvers/githubentity"
)

// The entity stage (poll.EntityResolver): each item's entity resolved by
// githubentity, reusing what this cycle already read. The cycle's
// lookups answer the actors' roles (one per login per cycle, shared with
// detection) and the pull request and its reviews (read by detection).
// An issue or pull request created within the window has every comment
// and label event in the window's listings, so its entity costs no
// listing; an older one costs its comments and its issue events (one
// call each, see githubentity.MaxPages). Every call goes through the
// poller's client and is counted in Usage.

var _ poll.EntityResolver = (*Driver)(nil)

// ownAccounts is the tool's own accounts on GitHub (the token's account,
// authorization.bot_accounts): their activity is no new version.
type ownAccounts struct {
	mu  sync.Mutex
	ids []string
}

// AddOwnAccounts adds ids to the tool's own accounts (FromConfig: the
// configured bot accounts; Account: the token's account).
func (d *Driver) AddOwnAccounts(ids ...string) {
	d.own.mu.Lock()
	defer d.own.mu.Unlock()
	d.own.ids = append(d.own.ids, ids...)
}

func (d *Driver) ownIDs() []string {
	d.own.mu.Lock()
	defer d.own.mu.Unlock()
	return slices.Clone(d.own.ids)
}

// EntitySystem implements poll.EntityResolver.
func (d *Driver) EntitySystem() string { return entity.SystemGitHub }

// Entities implements poll.EntityResolver: the cycle's resolver
// (forgepoll.Stage), building each entity with githubentity from what
// the cycle read. A failed resolution is the item's (its evaluation is
// denied); it never stops the cycle.
func (d *Driver) Entities(ctx context.Context, items []*poll.Item) (poll.ItemResolver, error) {
	d.mu.Lock()
	lk := d.lk
	d.mu.Unlock()
	if lk == nil {
		lk = newLookups(d.p.o.Client)
	}
	floor, repo := d.w.Floor(), d.p.o.Repo
	r := githubentity.New(d.p.o.Client, githubentity.Options{Source: repo, Permissions: lk,
		Own: d.ownIDs(), Policy: d.p.policy, Log: d.p.o.Log})
	ref := func(s subject) entity.Ref {
		ref := entity.Ref{System: entity.SystemGitHub, Repo: repo, Kind: entity.KindWorkItem, ID: int64(s.number())}
		if s.isPR() {
			ref.Kind = entity.KindChangeProposal
		}
		return ref
	}
	build := func(ctx context.Context, ref entity.Ref, s subject) (*entity.Entity, error) {
		k := githubentity.Known{Issue: s.issue}
		if s.isPR() {
			var err error
			if k, err = d.knownPull(ctx, lk, s); err != nil {
				return nil, err
			}
		}
		if s.complete && s.issue.GetCreatedAt().After(floor) {
			k.Comments, k.CommentsKnown = s.comments, true
			k.Events, k.EventsKnown = s.labels, true
		}
		return r.ResolveKnown(ctx, ref, k)
	}
	older := func(ctx context.Context, s subject, e *entity.Entity, floor time.Time) error {
		return d.readOlder(ctx, s.tail(repo), e, floor)
	}
	return forgepoll.Stage[subject]{Name: Name, Window: &d.w, Ref: ref, Build: build, Refresh: d.p.keys.refresh,
		Remember: d.p.remember, Older: older, Fill: d.fillRecords}.Entities(ctx, items)
}

// knownPull is what detection read of a pull request: the pull request
// and its reviews (through the cycle's lookups: read now if not yet).
func (d *Driver) knownPull(ctx context.Context, lk *lookups, s subject) (githubentity.Known, error) {
	pr, err := lk.PullRequest(ctx, d.p.owner, d.p.name, s.number())
	if err != nil {
		return githubentity.Known{}, errors.New("github-poll: reading pull request " + strconv.Itoa(s.number()) + ": " + err.Error())
	}
	rs, err := lk.reviewsOf(ctx, d.p, s.number())
	if err != nil {
		return githubentity.Known{}, err
	}
	// A listing that reached the page limit may have more: let the
	// resolver read the newest pages itself.
	return githubentity.Known{Pull: pr, Reviews: rs, ReviewsKnown: len(rs) < maxPages*100}, nil
}

// reviewsOf lists the reviews of pull request n once per cycle (shared by
// detection and the entity stage).
func (l *lookups) reviewsOf(ctx context.Context, p *Poller, n int) ([]*gogithub.PullRequestReview, error) {
	return l.reviews.get(n, func() ([]*gogithub.PullRequestReview, error) { return p.reviews(ctx, n) })
}
