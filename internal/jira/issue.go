package jira

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// EntityFields are the issue fields an entity is built from
// (package jiraentity): DefaultFields plus the description, the assignee,
// the resolution date and the comment page.
var EntityFields = append(append([]string(nil), DefaultFields...), "description", "assignee", "resolutiondate", "comment")

// CommentPage is an issue's comment field (Jira's PageOfComments): the
// comments Jira returns with the issue, oldest first.
type CommentPage struct {
	Comments   []Comment `json:"comments"`
	StartAt    int       `json:"startAt"`
	MaxResults int       `json:"maxResults"`
	Total      int       `json:"total"`
}

// IssueRead is an issue with the activity an entity needs: its newest
// comments and its whole changelog.
type IssueRead struct {
	// Issue carries EntityFields (its Fields.Comment and Changelog are
	// what the read started from).
	Issue Issue
	// Comments are the issue's comments, newest first, Text rendered: all
	// of them, or the newest commentsPageSize when it has more
	// (CommentsTotal).
	Comments      []Comment
	CommentsTotal int
	// Histories is the whole changelog, oldest first.
	Histories []History
}

// ReadIssue reads one issue for an entity: GET /rest/api/3/issue/{id}
// with EntityFields and expand=changelog, one call when the comments and
// the changelog Jira returns inline are complete; otherwise CompleteIssue
// adds the further reads.
func (c *Client) ReadIssue(ctx context.Context, idOrKey string) (IssueRead, error) {
	if idOrKey == "" {
		return IssueRead{}, fmt.Errorf("jira issue: empty issue id or key")
	}
	cl := call{method: "GET", template: "/rest/api/3/issue/{issueIdOrKey}",
		path: "/rest/api/3/issue/" + pathEscape(idOrKey), retry: true,
		query: url.Values{"fields": {strings.Join(EntityFields, ",")}, "expand": {"changelog"}}}
	_, raw, err := c.do(ctx, cl)
	if err != nil {
		return IssueRead{}, err
	}
	var is Issue
	if err := decodeStrict(cl, raw, &is, "id", "key", "fields"); err != nil {
		return IssueRead{}, err
	}
	if is.ID == "" || is.Key == "" {
		return IssueRead{}, fmt.Errorf("jira %s (%s): response has no id or key", cl.endpoint(), idOrKey)
	}
	return c.CompleteIssue(ctx, is)
}

// CompleteIssue turns an issue already read with EntityFields and
// expand=changelog (by ReadIssue, or a search) into an IssueRead. It
// calls Jira only for what the issue did not carry whole: one comment
// listing (the newest commentsPageSize, newest first) when the inline
// comment page is not all of them, and the paged changelog (100 entries
// a call) when the inline changelog is not all of it.
func (c *Client) CompleteIssue(ctx context.Context, is Issue) (IssueRead, error) {
	r := IssueRead{Issue: is}
	page := is.Fields.Comment
	if page == nil {
		return IssueRead{}, fmt.Errorf("jira issue %s: read without its comment field", is.Key)
	}
	if is.Changelog == nil {
		return IssueRead{}, fmt.Errorf("jira issue %s: read without its changelog (expand=changelog)", is.Key)
	}
	if page.StartAt == 0 && page.Total <= len(page.Comments) {
		for i := len(page.Comments) - 1; i >= 0; i-- { // inline: oldest first
			cm := page.Comments[i]
			if cm.ID == "" {
				return IssueRead{}, fmt.Errorf("jira issue %s: comment without id", is.Key)
			}
			cm.Text = c.commentText(is.Key, cm)
			r.Comments = append(r.Comments, cm)
		}
		r.CommentsTotal = len(r.Comments)
	} else {
		cs, total, err := c.newestComments(ctx, is.Key)
		if err != nil {
			return IssueRead{}, err
		}
		r.Comments, r.CommentsTotal = cs, max(total, len(cs))
	}
	hs := append([]History(nil), is.Changelog.Histories...)
	if is.Changelog.StartAt != 0 || is.Changelog.Total > len(hs) {
		all, err := c.Changelog(ctx, is.Key)
		if err != nil {
			return IssueRead{}, err
		}
		hs = all
	}
	r.Histories = sortHistories(hs)
	return r, nil
}

// newestComments reads one page of an issue's newest comments
// (orderBy=-created) and how many it has.
func (c *Client) newestComments(ctx context.Context, issueKey string) ([]Comment, int, error) {
	cl := call{method: "GET", template: "/rest/api/3/issue/{issueIdOrKey}/comment",
		path: "/rest/api/3/issue/" + pathEscape(issueKey) + "/comment", retry: true,
		query: url.Values{"orderBy": {"-created"}, "startAt": {"0"}, "maxResults": {strconv.Itoa(commentsPageSize)}}}
	_, raw, err := c.do(ctx, cl)
	if err != nil {
		return nil, 0, err
	}
	var page CommentPage
	if err := decodeStrict(cl, raw, &page, "comments", "total"); err != nil {
		return nil, 0, err
	}
	out := make([]Comment, 0, len(page.Comments))
	for _, cm := range page.Comments {
		if cm.ID == "" {
			return nil, 0, fmt.Errorf("jira %s (%s): comment without id", cl.endpoint(), issueKey)
		}
		cm.Text = c.commentText(issueKey, cm)
		out = append(out, cm)
	}
	return out, page.Total, nil
}

// ProjectRoleMembers reads a project's role membership now, bypassing
// the cache (and refreshing it): account id → the names of the roles it
// holds directly, for MapRoles. It costs one call for the project's roles
// and one per role.
func (c *Client) ProjectRoleMembers(ctx context.Context, projectKey string) (map[string][]string, error) {
	if !ValidProjectKey(projectKey) {
		return nil, fmt.Errorf("jira roles: invalid project key %q", projectKey)
	}
	c.roleFetch.Lock()
	defer c.roleFetch.Unlock()
	return c.fetchProjectRoles(ctx, projectKey)
}

// DiffLabels compares two space-separated label lists (a changelog
// labels item's fromString and toString).
func DiffLabels(from, to string) (added, removed []string) {
	f, t := strings.Fields(from), strings.Fields(to)
	for _, l := range t {
		if !slices.Contains(f, l) {
			added = append(added, l)
		}
	}
	for _, l := range f {
		if !slices.Contains(t, l) {
			removed = append(removed, l)
		}
	}
	return added, removed
}
