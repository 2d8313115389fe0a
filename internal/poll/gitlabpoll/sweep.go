package gitlabpoll

import (
	"context"
	"fmt"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
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

// sweepPos is the sweep's next page: of the merge requests (MRs) or the
// issues.
type sweepPos struct {
	MRs  bool `json:"mrs,omitempty"`
	Page int  `json:"page,omitempty"`
}

// sweepPage reads the sweep's page and moves the position on (to the
// other list's first page after a short one).
func (p *Poller) sweepPage(ctx context.Context) ([]subject, error) {
	p.mu.Lock()
	pos := p.sweepAt
	p.mu.Unlock()
	pos.Page = max(pos.Page, 1)
	opened := "opened"
	f, lo := listFilter{state: &opened, orderBy: "created_at"}, gitlab.ListOptions{PerPage: sweepPerPage, Page: int64(pos.Page)}
	var out []subject
	n := 0
	if pos.MRs {
		mrs, _, err := p.mergeRequests(ctx, lo, f)
		if err != nil {
			return nil, fmt.Errorf("gitlab-poll: listing the opened merge requests (sweep page %d): %w", pos.Page, err)
		}
		n, out = len(mrs), mergeRequestSubjects(mrs)
	} else {
		iss, _, err := p.issues(ctx, lo, f)
		if err != nil {
			return nil, fmt.Errorf("gitlab-poll: listing the opened issues (sweep page %d): %w", pos.Page, err)
		}
		n, out = len(iss), issueSubjects(iss)
	}
	for i := range out {
		out[i].updated = out[i].updated.UTC()
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
	refresh := func(ctx context.Context) error {
		if refreshed || p.keys.isRead() && !p.keys.mayChange(p) {
			return nil
		}
		if err := p.keys.refresh(ctx, d.w.Floor()); err != nil {
			return fmt.Errorf("gitlab-poll: reading the dispatched pipelines: %w", err)
		}
		return nil
	}
	sw := forgepoll.Sweep[subject]{Refresh: refresh, Entity: d.sweptEntity, Fill: d.fillRecords, Log: p.o.Log}
	return sw.Add(ctx, &d.w, disc, forgepoll.Candidates(todo, subs, page), cutoff)
}

// isRead reports whether a pipeline list was indexed.
func (k *keyIndex) isRead() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.wasRead
}
