package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

const commentsPageSize = 50

// CommentsSince lists an issue's comments (orderBy=-created). It returns
// only comments created or updated after since (all when since is zero),
// newest first, with Text filled from the ADF body. It stops paging at the first page holding a
// comment created at or before since; a comment created earlier but edited
// later is therefore only seen when it shares a page with newer ones.
func (c *Client) CommentsSince(ctx context.Context, issueKey string, since time.Time) ([]Comment, error) {
	out, _, _, err := c.commentsSince(ctx, issueKey, since, false)
	return out, err
}

// CommentsSinceNewest is CommentsSince that also returns, at no further
// call, the first page it read whole: the issue's newest comments (at
// most commentsPageSize, newest first, Text rendered) and how many
// comments the issue has: what an entity needs (IssueRead).
func (c *Client) CommentsSinceNewest(ctx context.Context, issueKey string, since time.Time) (changed, newest []Comment, total int, err error) {
	return c.commentsSince(ctx, issueKey, since, true)
}

// commentsSince lists the comments after since, and with keepNewest the
// first page whole.
func (c *Client) commentsSince(ctx context.Context, issueKey string, since time.Time, keepNewest bool) (changed, newest []Comment, total int, err error) {
	if issueKey == "" {
		return nil, nil, 0, fmt.Errorf("jira comments: empty issue key")
	}
	cl := call{method: "GET", template: "/rest/api/3/issue/{issueIdOrKey}/comment",
		path: "/rest/api/3/issue/" + pathEscape(issueKey) + "/comment", retry: true}
	for startAt, n := 0, 0; ; n++ {
		if n == maxPages {
			return nil, nil, 0, tooManyPages(cl)
		}
		cl.query = url.Values{"orderBy": {"-created"}, "startAt": {strconv.Itoa(startAt)}, "maxResults": {strconv.Itoa(commentsPageSize)}}
		_, raw, err := c.do(ctx, cl)
		if err != nil {
			return nil, nil, 0, err
		}
		var page struct {
			Comments []Comment `json:"comments"`
			Total    int       `json:"total"`
		}
		if err := decodeStrict(cl, raw, &page, "comments", "total", "startAt"); err != nil {
			return nil, nil, 0, err
		}
		reached := false
		for _, cm := range page.Comments {
			if cm.ID == "" {
				return nil, nil, 0, fmt.Errorf("jira %s (%s): comment without id", cl.endpoint(), issueKey)
			}
			old := !since.IsZero() && !cm.Created.After(since)
			reached = reached || old
			keep := !old || cm.Updated.After(since) // created, or edited, after since
			if keep || (keepNewest && startAt == 0) {
				cm.Text = c.commentText(issueKey, cm)
			}
			if keepNewest && startAt == 0 {
				newest = append(newest, cm)
			}
			if keep {
				changed = append(changed, cm)
			}
		}
		if startAt == 0 {
			total = max(page.Total, len(newest))
		}
		startAt += len(page.Comments)
		if reached || len(page.Comments) == 0 || startAt >= page.Total {
			return changed, newest, total, nil
		}
	}
}

// commentText renders a comment body: ADF, or a plain string (API v2
// style). A body that is not a readable document renders as empty text
// and is logged, so that the loss is never silent.
func (c *Client) commentText(issueKey string, cm Comment) string {
	var s string
	if json.Unmarshal(cm.Body, &s) == nil {
		return s
	}
	text, err := ADFToText(cm.Body)
	if err != nil {
		c.log.Warn("comment body is not a readable ADF document; its text is empty", "issue", issueKey, "comment", cm.ID, "error", err.Error())
	}
	return text
}

// CommentsSinceInline is CommentsSinceNewest answered from an issue's
// inline comment field (a search or an issue read with the comment field),
// at no call: ok is false when the page is not all of the issue's comments
// (it starts past the first, or Jira says there are more than it holds),
// and the caller lists them instead. It walks the comments as the listing
// would, newest first by pages of commentsPageSize, stopping after the
// page that reaches since, so that both see the same changes.
func (c *Client) CommentsSinceInline(issueKey string, page *CommentPage, since time.Time) (changed, newest []Comment, total int, ok bool) {
	if page == nil || page.StartAt != 0 || page.Total > len(page.Comments) {
		return nil, nil, 0, false
	}
	n := len(page.Comments)
	reached := false
	for i := 0; i < n && !reached; i += commentsPageSize {
		for j := i; j < min(i+commentsPageSize, n); j++ {
			cm := page.Comments[n-1-j] // inline: oldest first
			if cm.ID == "" {
				return nil, nil, 0, false
			}
			old := !since.IsZero() && !cm.Created.After(since)
			reached = reached || old
			keep := !old || cm.Updated.After(since)
			if keep || i == 0 {
				cm.Text = c.commentText(issueKey, cm)
			}
			if i == 0 {
				newest = append(newest, cm)
			}
			if keep {
				changed = append(changed, cm)
			}
		}
	}
	return changed, newest, n, true
}
