package gitlabevent

import (
	"context"
	"errors"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// Lookup implements API over a client of internal/gitlab. Every call is a
// read (retried on 429 and 5xx there); a token with read_api suffices.
type Lookup struct {
	Client *gitlab.Client
}

// maxEventPages bounds the label or state event pages read (100 per page).
const maxEventPages = 10

// MaxEventPages is the page cap of LabelEvents and StateEvents: a caller
// that gets MaxEventPages*100 events may not have them all.
const MaxEventPages = maxEventPages

// Issue implements API.
func (l *Lookup) Issue(ctx context.Context, project string, iid int64) (*gitlab.Issue, error) {
	is, _, err := l.Client.Issues.GetIssue(project, iid, gitlab.WithContext(ctx))
	return is, notFoundNil(err)
}

// MergeRequest implements API.
func (l *Lookup) MergeRequest(ctx context.Context, project string, iid int64) (*gitlab.MergeRequest, error) {
	mr, _, err := l.Client.MergeRequests.GetMergeRequest(project, iid, nil, gitlab.WithContext(ctx))
	return mr, notFoundNil(err)
}

// Note implements API.
func (l *Lookup) Note(ctx context.Context, project, noteable string, iid, id int64) (*gitlab.Note, error) {
	var n *gitlab.Note
	var err error
	if noteable == NoteableMergeRequest {
		n, _, err = l.Client.Notes.GetMergeRequestNote(project, iid, id, gitlab.WithContext(ctx))
	} else {
		n, _, err = l.Client.Notes.GetIssueNote(project, iid, id, gitlab.WithContext(ctx))
	}
	return n, notFoundNil(err)
}

// LabelEvents implements API: every page, oldest first.
func (l *Lookup) LabelEvents(ctx context.Context, project, noteable string, iid int64) ([]*gitlab.LabelEvent, error) {
	return allPages(func(lo gitlab.ListOptions) ([]*gitlab.LabelEvent, *gitlab.Response, error) {
		opt := &gitlab.ListLabelEventsOptions{ListOptions: lo}
		if noteable == NoteableMergeRequest {
			return l.Client.ResourceLabelEvents.ListMergeRequestsLabelEvents(project, iid, opt, gitlab.WithContext(ctx))
		}
		return l.Client.ResourceLabelEvents.ListIssueLabelEvents(project, iid, opt, gitlab.WithContext(ctx))
	})
}

// StateEvents implements API: every page, oldest first.
func (l *Lookup) StateEvents(ctx context.Context, project, noteable string, iid int64) ([]*gitlab.StateEvent, error) {
	return allPages(func(lo gitlab.ListOptions) ([]*gitlab.StateEvent, *gitlab.Response, error) {
		opt := &gitlab.ListStateEventsOptions{ListOptions: lo}
		if noteable == NoteableMergeRequest {
			return l.Client.ResourceStateEvents.ListMergeStateEvents(project, iid, opt, gitlab.WithContext(ctx))
		}
		return l.Client.ResourceStateEvents.ListIssueStateEvents(project, iid, opt, gitlab.WithContext(ctx))
	})
}

// allPages reads up to maxEventPages pages of 100.
func allPages[T any](page func(gitlab.ListOptions) ([]T, *gitlab.Response, error)) ([]T, error) {
	return Pages(maxEventPages, page)
}

// Pages reads up to maxPages pages of 100 of an offset-paginated listing,
// following the next page GitLab names.
func Pages[T any](maxPages int, page func(gitlab.ListOptions) ([]T, *gitlab.Response, error)) ([]T, error) {
	var all []T
	lo := gitlab.ListOptions{PerPage: 100, Page: 1}
	for range maxPages {
		items, resp, err := page(lo)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if resp == nil || resp.NextPage == 0 {
			break
		}
		lo.Page = resp.NextPage
	}
	return all, nil
}

// Member implements API (GET /projects/:id/members/all/:user_id, which
// includes inherited and invited-group members).
func (l *Lookup) Member(ctx context.Context, project string, userID int64) (*gitlab.ProjectMember, error) {
	m, _, err := l.Client.ProjectMembers.GetInheritedProjectMember(project, userID, gitlab.WithContext(ctx))
	return m, notFoundNil(err)
}

// User implements API.
func (l *Lookup) User(ctx context.Context, id int64) (*gitlab.User, error) {
	u, _, err := l.Client.Users.GetUser(id, gitlab.GetUsersOptions{}, gitlab.WithContext(ctx))
	if err == nil && u == nil {
		err = errors.New("no user returned")
	}
	return u, err
}

// ProjectPath implements API.
func (l *Lookup) ProjectPath(ctx context.Context, id int64) (string, error) {
	p, _, err := l.Client.Projects.GetProject(id, nil, gitlab.WithContext(ctx))
	if err != nil {
		return "", err
	}
	return p.PathWithNamespace, nil
}

// notFoundNil turns a 404 into "absent" (nil, nil).
func notFoundNil(err error) error {
	if errors.Is(err, gitlab.ErrNotFound) {
		return nil
	}
	return err
}
