package githubpoll

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
)

// Scheduled discovery's candidates (docs/github.md, "Scheduled discovery
// on GitHub"): every issue and pull request the window's listings show
// that has no change left to handle, and one page per cycle of the
// repository's open issues and pull requests (oldest first, wrapping
// around), read with If-None-Match: an unchanged page costs a 304 and no
// rate-limit point. A candidate's entity is resolved once per updated_at
// and remembered (in memory and the state directory); the run list is
// read again only when a listing changed or a run of the list was still
// going or may be retried, so an idle cycle costs the sweep page's 304
// more than without scheduled discovery.

var _ poll.Sweeper = (*Driver)(nil) // poll.SweepSwitch

// sweepPerPage is the size of the sweep's page.
const sweepPerPage = 100

// sweepPage reads the sweep's page of open issues and pull requests and
// moves the position on (back to the first page after a short one).
func (p *Poller) sweepPage(ctx context.Context) ([]*gogithub.Issue, error) {
	p.mu.Lock()
	page := max(p.sweepAt, 1)
	p.mu.Unlock()
	q := url.Values{"state": {"open"}, "sort": {"created"}, "direction": {"asc"}, "per_page": {strconv.Itoa(sweepPerPage)},
		"page": {strconv.Itoa(page)}}
	u := fmt.Sprintf("repos/%s/%s/issues?%s", p.owner, p.name, q.Encode())
	raw, _, err := p.listing(ctx, u, "", func([]json.RawMessage) bool { return false })
	if err != nil {
		return nil, fmt.Errorf("github-poll: listing the open issues and pull requests (sweep page %d): %w", page, err)
	}
	is, err := decode[gogithub.Issue](raw)
	if err != nil {
		return nil, fmt.Errorf("github-poll: decoding the sweep page %d: %w", page, err)
	}
	p.mu.Lock()
	p.sweepAt = page + 1
	if len(is) < sweepPerPage {
		p.sweepAt = 1
	}
	p.mu.Unlock()
	return is, nil
}

// swept adds to disc the candidates of scheduled discovery: subs (the
// window's) and the sweep page's items, except those in todo. fetched is
// the count of listings GitHub answered with content before the window's
// listings (Poller.fetchedCount); refreshed: the run list was read.
func (d *Driver) swept(ctx context.Context, disc *poll.Discovery, subs, todo []subject, cutoff time.Time, fetched int, refreshed bool) error {
	p := d.p
	open, err := p.sweepPage(ctx)
	if err != nil {
		return refused(err)
	}
	changed := p.fetchedCount() != fetched
	var page []subject
	for _, is := range open {
		if is.GetNumber() > 0 && is.UpdatedAt != nil {
			page = append(page, subject{issue: is, updated: is.GetUpdatedAt().UTC()})
		}
	}
	refresh := func(ctx context.Context) error {
		if refreshed {
			return nil
		}
		return d.readRunsFor(ctx, changed)
	}
	sw := forgepoll.Sweep[subject]{Refresh: refresh, Entity: d.sweptEntity, Fill: d.fillRecords, Log: p.o.Log}
	return sw.Add(ctx, &d.w, disc, forgepoll.Candidates(todo, subs, page), cutoff)
}

// readRunsFor makes the run index current for swept candidates: read
// (conditionally) when force, when it was never read, or when a run was
// going or a version may be retried; else the last listing (kept in the
// state directory) is indexed again, without a request.
func (d *Driver) readRunsFor(ctx context.Context, force bool) error {
	k, floor := d.p.keys, d.w.Floor()
	if !k.isRead() && !k.restoreCached(floor) {
		force = true
	}
	if force || k.mayChange(d.p) {
		return k.refresh(ctx, floor)
	}
	return nil
}

// sweptEntity is s's entity: the one remembered at s's updated_at, else
// resolved now (the entity stage remembers it).
func (d *Driver) sweptEntity(ctx context.Context, s subject) (*entity.Entity, error) {
	return d.p.ents.Get(ctx, s.number(), s.updated, func(ctx context.Context) (*entity.Entity, error) {
		it := &poll.Item{ID: s.Key()}
		if err := poll.ResolveEntities(ctx, d, []*poll.Item{it}); err != nil || it.Entity == nil {
			return nil, err
		}
		return it.Entity.Entity, it.Entity.Err
	})
}

// remember keeps the entity of s resolved at s's updated_at, once that
// second is complete on GitHub's clock (forgepoll.Entities.Remember).
func (p *Poller) remember(s subject, e *entity.Entity) {
	p.ents.Remember(s.number(), s.updated, e, p.o.Now(), Resolution)
}
