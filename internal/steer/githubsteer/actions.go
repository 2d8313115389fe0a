package githubsteer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// Run is the active run as GitHub Actions records it: its workflow, its
// creation (the floor of the run listing), and the change position its
// title's idempotency key names (ok false: a title without one, a run
// of no change, which steers nothing).
type Run struct {
	Workflow string // the workflow's id
	Created  time.Time
	Own      changepos.Pos
	OK       bool
}

// ReadRun reads run id of repo (GET /repos/{o}/{r}/actions/runs/{id}):
// one call at the start of a run of a harness that steers.
func ReadRun(ctx context.Context, c *gogithub.Client, repo, scopeKey string, id int64) (Run, error) {
	owner, name, _ := strings.Cut(repo, "/")
	r, _, err := github.CallFor(ctx, Policy, func(ctx context.Context) (*gogithub.WorkflowRun, *gogithub.Response, error) {
		return c.Actions.GetWorkflowRunByID(ctx, owner, name, id)
	})
	if err != nil {
		return Run{}, fmt.Errorf("githubsteer: reading run %d: %w", id, err)
	}
	out := Run{Workflow: strconv.FormatInt(r.GetWorkflowID(), 10), Created: r.GetCreatedAt().UTC()}
	for _, f := range strings.Fields(r.GetDisplayTitle()) {
		if newest.Scope(f) == scopeKey {
			out.Own, out.OK = newest.Change(f)
		}
	}
	return out, nil
}

// Consumed is the start-up check of a run whose event is comment on
// repo#number (created at, or after, since): true when the tool's own
// account (self, github.Self) replied that it was delivered to a run of
// harness (steer.Marker). One listing of the item's comments since then.
func Consumed(ctx context.Context, c *gogithub.Client, repo string, number int, harness string, comment int64,
	since time.Time, self string) (bool, error) {
	owner, name, _ := strings.Cut(repo, "/")
	opt := &gogithub.IssueListCommentsOptions{Since: &since, ListOptions: gogithub.ListOptions{PerPage: 100}}
	var replies []steer.Reply
	for page := 0; page < 10; page++ {
		list, resp, err := github.CallFor(ctx, Policy, func(ctx context.Context) ([]*gogithub.IssueComment, *gogithub.Response, error) {
			return c.Issues.ListComments(ctx, owner, name, number, opt)
		})
		if err != nil {
			return false, fmt.Errorf("githubsteer: listing the comments of %s#%d: %w", repo, number, err)
		}
		for _, cm := range list {
			replies = append(replies, steer.Reply{Author: cm.GetUser().GetLogin(), Body: cm.GetBody()})
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return steer.Consumed(replies, self, harness, comment), nil
}
