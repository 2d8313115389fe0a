package gitlabpoll

import (
	"context"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
)

// listFilter is what a listing of the project's merge requests or issues
// asks for: a state (nil: any), updated after a time (nil: any), and the
// order (OrderBy, ascending).
type listFilter struct {
	state        *string
	updatedAfter *time.Time
	orderBy      string
}

// mergeRequests lists one page (lo) of the project's merge requests.
func (p *Poller) mergeRequests(ctx context.Context, lo gitlab.ListOptions, f listFilter) ([]*gitlab.BasicMergeRequest, *gitlab.Response, error) {
	asc := "asc"
	return p.o.Client.MergeRequests.ListProjectMergeRequests(p.o.Project, &gitlab.ListProjectMergeRequestsOptions{
		ListOptions: lo, State: f.state, UpdatedAfter: f.updatedAfter, OrderBy: &f.orderBy, Sort: &asc}, gitlab.WithContext(ctx))
}

// issues lists one page (lo) of the project's issues.
func (p *Poller) issues(ctx context.Context, lo gitlab.ListOptions, f listFilter) ([]*gitlab.Issue, *gitlab.Response, error) {
	asc := "asc"
	return p.o.Client.Issues.ListProjectIssues(p.o.Project, &gitlab.ListProjectIssuesOptions{
		ListOptions: lo, State: f.state, UpdatedAfter: f.updatedAfter, OrderBy: &f.orderBy, Sort: &asc}, gitlab.WithContext(ctx))
}

// mergeRequestSubjects is the merge requests that have an updated_at, as
// subjects.
func mergeRequestSubjects(mrs []*gitlab.BasicMergeRequest) []subject {
	var out []subject
	for _, m := range mrs {
		if m.UpdatedAt != nil {
			out = append(out, subject{gitlabevent.Subject{MergeRequest: &gitlab.MergeRequest{BasicMergeRequest: *m}}, *m.UpdatedAt})
		}
	}
	return out
}

// issueSubjects is the issues that have an updated_at, as subjects.
func issueSubjects(iss []*gitlab.Issue) []subject {
	var out []subject
	for _, is := range iss {
		if is.UpdatedAt != nil {
			out = append(out, subject{gitlabevent.Subject{Issue: is}, *is.UpdatedAt})
		}
	}
	return out
}
