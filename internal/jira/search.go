package jira

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// DefaultFields are the issue fields the poll driver reads; Search asks for
// them when a request names none.
var DefaultFields = []string{"summary", "labels", "created", "updated", "status", "reporter", "creator", "project"}

// MaxInlineProperties is how many issue properties Jira returns inline.
const MaxInlineProperties = 5

// MaxReconcileIssues is how many issue ids an enhanced search accepts in
// reconcileIssues.
const MaxReconcileIssues = 50

// maxPages bounds the pages one listing call reads (Search, the
// changelogs, the comments): a server that keeps announcing another page
// (a proxy's loop, a hostile answer) makes the call fail instead of
// reading, and holding, without end. No listing fullsend makes comes near
// it (Jira Cloud keeps at most 5,000 comments on an issue).
const maxPages = 1000

// tooManyPages is the error of a listing past maxPages.
func tooManyPages(cl call) error {
	return fmt.Errorf("jira %s: more than %d pages; stopping", cl.endpoint(), maxPages)
}

// DefaultPageSize is the maxResults Search sends when none is given.
const DefaultPageSize = 100

// searchPage is Jira's SearchAndReconcileResults.
type searchPage struct {
	Issues        []Issue `json:"issues"`
	NextPageToken string  `json:"nextPageToken"`
	IsLast        *bool   `json:"isLast"`
}

// searchBody is the request body: the caller's request plus the page token.
type searchBody struct {
	SearchRequest
	NextPageToken string `json:"nextPageToken,omitempty"`
}

// Search runs an enhanced search (POST /rest/api/3/search/jql), following
// nextPageToken until isLast or until limit issues were collected (limit
// <= 0: no limit). It never calls the retired /rest/api/3/search.
func (c *Client) Search(ctx context.Context, req SearchRequest, limit int) ([]Issue, error) {
	if req.MaxResults <= 0 {
		req.MaxResults = DefaultPageSize
	}
	if limit > 0 && limit < req.MaxResults {
		req.MaxResults = limit
	}
	var out []Issue
	seen := map[string]bool{}
	token := ""
	for n := 0; ; n++ {
		if n == maxPages {
			return nil, tooManyPages(call{method: "POST", template: "/rest/api/3/search/jql", path: "/rest/api/3/search/jql"})
		}
		page, next, err := c.SearchPage(ctx, req, token)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if limit > 0 && len(out) >= limit {
			return out[:limit], nil
		}
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("jira POST /rest/api/3/search/jql: server repeated page token; stopping after %d issues", len(out))
		}
		seen[next] = true
		token = next
	}
}

// SearchPage runs one page of an enhanced search: the first (token "")
// or the one a previous page's next token names, for the same request.
// next is "" after the last page. Jira keeps a token for 7 days; one it
// no longer accepts is a 400.
func (c *Client) SearchPage(ctx context.Context, req SearchRequest, token string) (issues []Issue, next string, err error) {
	cl := call{method: "POST", template: "/rest/api/3/search/jql", path: "/rest/api/3/search/jql", retry: true}
	if req.JQL == "" {
		return nil, "", errors.New("jira search: empty JQL (Jira rejects unbounded queries)")
	}
	if len(req.Properties) > MaxInlineProperties {
		return nil, "", fmt.Errorf("jira search: %d properties requested, Jira returns at most %d inline", len(req.Properties), MaxInlineProperties)
	}
	if len(req.ReconcileIssues) > MaxReconcileIssues {
		return nil, "", fmt.Errorf("jira search: %d issues to reconcile, Jira accepts at most %d", len(req.ReconcileIssues), MaxReconcileIssues)
	}
	if len(req.Fields) == 0 {
		req.Fields = DefaultFields
	}
	if req.MaxResults <= 0 {
		req.MaxResults = DefaultPageSize
	}
	cl.body = searchBody{SearchRequest: req, NextPageToken: token}
	_, raw, err := c.do(ctx, cl)
	if err != nil {
		return nil, "", err
	}
	var page searchPage
	if err := decodeStrict(cl, raw, &page, "issues"); err != nil {
		return nil, "", err
	}
	for i := range page.Issues {
		if page.Issues[i].Key == "" || page.Issues[i].ID == "" {
			return nil, "", fmt.Errorf("jira %s: result %d has no id or key", cl.endpoint(), i)
		}
	}
	c.rememberIDs(page.Issues)
	if page.IsLast != nil && *page.IsLast {
		page.NextPageToken = ""
	}
	return page.Issues, page.NextPageToken, nil
}

// maxIDCache bounds the id↔key cache used to map bulk changelogs to keys.
const maxIDCache = 100000

func (c *Client) rememberIDs(issues []Issue) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.idToKey)+len(issues) > maxIDCache {
		c.idToKey = map[string]string{}
		c.keyToID = map[string]string{}
	}
	for _, is := range issues {
		c.idToKey[is.ID] = is.Key
		c.keyToID[is.Key] = is.ID
	}
}

// IssueID returns the numeric id of an issue seen in an earlier search
// result, for SearchRequest.ReconcileIssues.
func (c *Client) IssueID(key string) (int64, bool) {
	c.mu.Lock()
	id, ok := c.keyToID[key]
	c.mu.Unlock()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil
}
