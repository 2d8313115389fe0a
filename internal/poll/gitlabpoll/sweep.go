package gitlabpoll

import (
	"context"
	"errors"
	"fmt"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Scheduled discovery's candidates (docs/gitlab.md, "Scheduled discovery
// on GitLab"): every issue and merge request the window's listings show
// that has no change left to handle, and one page per cycle of the
// project's opened issues, then opened merge requests (oldest first,
// wrapping around; the position is kept in the state directory). GitLab
// has no conditional requests: the page costs one call each cycle. A
// candidate's entity is resolved once per updated_at and remembered; the
// pipeline list is read again only when a listing of the window changed,
// or a pipeline was not finished, or a version may be retried, so an
// idle cycle costs the sweep page more than without scheduled discovery.

var _ poll.Sweeper = (*Driver)(nil) // poll.SweepSwitch

// sweepPerPage is the size of the sweep's page.
const sweepPerPage = 100

// maxEntities bounds the swept entities remembered.
const maxEntities = 5000

// sweepPos is the sweep's next page: of the merge requests (MRs) or the
// issues.
type sweepPos struct {
	MRs  bool `json:"mrs,omitempty"`
	Page int  `json:"page,omitempty"`
}

// cachedEntity is a swept entity as resolved at its item's updated_at.
type cachedEntity = poll.SweptEntity

// sweepPage reads the sweep's page and moves the position on (to the
// other list's first page after a short one).
func (p *Poller) sweepPage(ctx context.Context) ([]subject, error) {
	p.mu.Lock()
	pos := p.sweepAt
	p.mu.Unlock()
	pos.Page = max(pos.Page, 1)
	opened, asc, by := "opened", "asc", "created_at"
	lo := gitlab.ListOptions{PerPage: sweepPerPage, Page: int64(pos.Page)}
	var out []subject
	n := 0
	if pos.MRs {
		mrs, _, err := p.o.Client.MergeRequests.ListProjectMergeRequests(p.o.Project, &gitlab.ListProjectMergeRequestsOptions{
			ListOptions: lo, State: &opened, OrderBy: &by, Sort: &asc}, gitlab.WithContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("gitlab-poll: listing the opened merge requests (sweep page %d): %w", pos.Page, err)
		}
		n = len(mrs)
		for _, m := range mrs {
			if m.UpdatedAt != nil {
				out = append(out, subject{gitlabevent.Subject{MergeRequest: &gitlab.MergeRequest{BasicMergeRequest: *m}}, m.UpdatedAt.UTC()})
			}
		}
	} else {
		iss, _, err := p.o.Client.Issues.ListProjectIssues(p.o.Project, &gitlab.ListProjectIssuesOptions{
			ListOptions: lo, State: &opened, OrderBy: &by, Sort: &asc}, gitlab.WithContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("gitlab-poll: listing the opened issues (sweep page %d): %w", pos.Page, err)
		}
		n = len(iss)
		for _, is := range iss {
			if is.UpdatedAt != nil {
				out = append(out, subject{gitlabevent.Subject{Issue: is}, is.UpdatedAt.UTC()})
			}
		}
	}
	pos.Page++
	if n < sweepPerPage {
		pos = sweepPos{MRs: !pos.MRs, Page: 1}
	}
	p.mu.Lock()
	p.sweepAt = pos
	p.mu.Unlock()
	return out, nil
}

// swept adds to disc the candidates of scheduled discovery: subs (the
// window's) and the sweep page's subjects, except those in todo.
// refreshed: the pipeline list was read this cycle.
func (d *Driver) swept(ctx context.Context, disc *poll.Discovery, subs, todo []subject, cutoff time.Time, refreshed bool) error {
	p := d.p
	page, err := p.sweepPage(ctx)
	if err != nil {
		return err
	}
	skip := map[string]bool{}
	for _, s := range todo {
		skip[s.Key()] = true
	}
	var cands []subject
	for _, s := range append(subs, page...) {
		if !skip[s.Key()] {
			skip[s.Key()] = true
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	if !refreshed && (!p.keys.isRead() || p.keys.mayChange(p)) {
		if err := p.keys.refresh(ctx, d.since); err != nil {
			return fmt.Errorf("gitlab-poll: reading the dispatched pipelines: %w", err)
		}
	}
	for _, s := range cands {
		d.mu.Lock()
		d.items[s.Key()] = s
		d.mu.Unlock()
		e, err := d.sweptEntity(ctx, s)
		if err != nil {
			p.o.Log.Debug("swept item skipped: its entity could not be built", "item", s.Key(), "error", err.Error())
			continue
		}
		it := &poll.Item{ID: s.Key(), Base: poll.Checkpoint{At: s.updated}, Cutoff: minTime(s.updated, cutoff), Waiting: s.updated,
			Entity: &entity.Resolution{Entity: e}}
		d.fillRecords(it, s)
		disc.Swept = append(disc.Swept, it)
	}
	return nil
}

// sweptEntity is s's entity: the one remembered at s's updated_at, else
// resolved now (and remembered).
func (d *Driver) sweptEntity(ctx context.Context, s subject) (*entity.Entity, error) {
	p := d.p
	p.mu.Lock()
	c, ok := p.ents[s.Key()]
	p.mu.Unlock()
	if e := c.At(s.updated); ok && e != nil {
		return e, nil
	}
	e, err := p.resolveSubject(ctx, p.entityResolver(), s)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, errors.New("no entity")
	}
	p.remember(s, e)
	return e, nil
}

// remember keeps the entity of s resolved at s's updated_at, once that
// second is complete on GitLab's clock: a change made later in the same
// second may leave updated_at where it is, and the entity kept would miss
// it.
func (p *Poller) remember(s subject, e *entity.Entity) {
	if s.updated.After(changepos.LastComplete(p.o.Now(), Resolution)) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ents) >= maxEntities {
		p.ents = map[string]cachedEntity{}
	}
	p.ents[s.Key()] = cachedEntity{Updated: s.updated, Entity: e}
}

// isRead reports whether a pipeline list was indexed.
func (k *keyIndex) isRead() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.wasRead
}
