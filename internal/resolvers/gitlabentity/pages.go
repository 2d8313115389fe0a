package gitlabentity

import (
	"context"
	"errors"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
)

const perPage = 100

// notes reads the notes of the issue or merge request iid, newest first,
// until entity.MaxActivity notes that are not system notes were read, the
// list ends, or MaxNotePages were read. cut is zero when every note was
// read, else the time of the oldest note read (older ones were not).
func (r *Resolver) notes(ctx context.Context, project, typ string, iid int64) (all []*gitlab.Note, cut time.Time, err error) {
	by, desc := "created_at", "desc"
	lo := gitlab.ListOptions{PerPage: perPage, Page: 1}
	human := 0
	for range MaxNotePages {
		var page []*gitlab.Note
		var resp *gitlab.Response
		if typ == gitlabevent.NoteableMergeRequest {
			page, resp, err = r.c.Notes.ListMergeRequestNotes(project, iid, &gitlab.ListMergeRequestNotesOptions{
				ListOptions: lo, OrderBy: &by, Sort: &desc}, gitlab.WithContext(ctx))
		} else {
			page, resp, err = r.c.Notes.ListIssueNotes(project, iid, &gitlab.ListIssueNotesOptions{
				ListOptions: lo, OrderBy: &by, Sort: &desc}, gitlab.WithContext(ctx))
		}
		if err != nil {
			return nil, time.Time{}, err
		}
		all = append(all, page...)
		for _, n := range page {
			if n != nil && !n.System {
				human++
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return all, time.Time{}, nil
		}
		if human >= entity.MaxActivity {
			break
		}
		lo.Page = resp.NextPage
	}
	return cutAt(all, func(n *gitlab.Note) *time.Time { return n.CreatedAt })
}

// errNoPageCount: GitLab leaves out X-Total-Pages for listings of more
// than 10,000 items, and label events cannot be read newest first.
var errNoPageCount = errors.New("more label events than GitLab counts pages for: the newest cannot be reached")

// labelEvents reads the label events of the issue or merge request iid.
// GitLab lists them oldest first and cannot sort them, so beyond one page
// it reads the last pages, newest first, until entity.MaxActivity label
// applications were read or MaxLabelEventPages pages in all. cut is as
// for notes.
func (r *Resolver) labelEvents(ctx context.Context, project, typ string, iid int64) ([]*gitlab.LabelEvent, time.Time, error) {
	page := func(n int64) ([]*gitlab.LabelEvent, *gitlab.Response, error) {
		opt := &gitlab.ListLabelEventsOptions{ListOptions: gitlab.ListOptions{PerPage: perPage, Page: n}}
		if typ == gitlabevent.NoteableMergeRequest {
			return r.c.ResourceLabelEvents.ListMergeRequestsLabelEvents(project, iid, opt, gitlab.WithContext(ctx))
		}
		return r.c.ResourceLabelEvents.ListIssueLabelEvents(project, iid, opt, gitlab.WithContext(ctx))
	}
	first, resp, err := page(1)
	if err != nil {
		return nil, time.Time{}, err
	}
	if resp == nil || resp.NextPage == 0 {
		return first, time.Time{}, nil
	}
	if resp.TotalPages < 2 {
		return nil, time.Time{}, errNoPageCount
	}
	var tail []*gitlab.LabelEvent
	adds, reads := 0, 1
	for p := resp.TotalPages; p >= 2; p-- {
		if reads == MaxLabelEventPages || adds >= entity.MaxActivity {
			return cutAt(tail, func(e *gitlab.LabelEvent) *time.Time { return e.CreatedAt })
		}
		evs, _, err := page(p)
		if err != nil {
			return nil, time.Time{}, err
		}
		reads++
		tail = append(tail, evs...)
		for _, e := range evs {
			if e != nil && e.Action == "add" {
				adds++
			}
		}
	}
	return append(first, tail...), time.Time{}, nil
}

// cutAt returns the items of a cut listing and its cut: the earliest
// time of the items read. Without one the cut cannot be placed, which is
// an error.
func cutAt[T comparable](items []T, at func(T) *time.Time) ([]T, time.Time, error) {
	var zero T
	var o time.Time
	for _, it := range items {
		if it == zero {
			continue
		}
		if t := at(it); t != nil && (o.IsZero() || t.Before(o)) {
			o = *t
		}
	}
	if o.IsZero() {
		return nil, o, errors.New("a cut listing has no created_at to cut at")
	}
	return items, o, nil
}
