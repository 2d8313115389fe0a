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
	cl := call{method: "POST", template: "/rest/api/3/search/jql", path: "/rest/api/3/search/jql", retry: true}
	if req.JQL == "" {
		return nil, errors.New("jira search: empty JQL (Jira rejects unbounded queries)")
	}
	if len(req.Properties) > MaxInlineProperties {
		return nil, fmt.Errorf("jira search: %d properties requested, Jira returns at most %d inline", len(req.Properties), MaxInlineProperties)
	}
	if len(req.ReconcileIssues) > MaxReconcileIssues {
		return nil, fmt.Errorf("jira search: %d issues to reconcile, Jira accepts at most %d", len(req.ReconcileIssues), MaxReconcileIssues)
	}
	if len(req.Fields) == 0 {
		req.Fields = DefaultFields
	}
	if req.MaxResults <= 0 {
		req.MaxResults = DefaultPageSize
	}
	if limit > 0 && limit < req.MaxResults {
		req.MaxResults = limit
	}
	body := searchBody{SearchRequest: req}
	var out []Issue
	seen := map[string]bool{}
	for n := 0; ; n++ {
		if n == maxPages {
			return nil, tooManyPages(cl)
		}
		cl.body = body
		_, raw, err := c.do(ctx, cl)
		if err != nil {
			return nil, err
		}
		var page searchPage
		if err := decodeStrict(cl, raw, &page, "issues"); err != nil {
			return nil, err
		}
		for i := range page.Issues {
			if page.Issues[i].Key == "" || page.Issues[i].ID == "" {
				return nil, fmt.Errorf("jira %s: result %d has no id or key", cl.endpoint(), len(out)+i)
			}
		}
		c.rememberIDs(page.Issues)
		out = append(out, page.Issues...)
		if limit > 0 && len(out) >= limit {
			return out[:limit], nil
		}
		last := page.NextPageToken == "" || (page.IsLast != nil && *page.IsLast)
		if last {
			return out, nil
		}
		if seen[page.NextPageToken] {
			return nil, fmt.Errorf("jira %s: server repeated page token; stopping after %d issues", cl.endpoint(), len(out))
		}
		seen[page.NextPageToken] = true
		body.NextPageToken = page.NextPageToken
	}
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
