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
	if issueKey == "" {
		return nil, fmt.Errorf("jira comments: empty issue key")
	}
	cl := call{method: "GET", template: "/rest/api/3/issue/{issueIdOrKey}/comment",
		path: "/rest/api/3/issue/" + pathEscape(issueKey) + "/comment", retry: true}
	var out []Comment
	for startAt := 0; ; {
		cl.query = url.Values{"orderBy": {"-created"}, "startAt": {strconv.Itoa(startAt)}, "maxResults": {strconv.Itoa(commentsPageSize)}}
		_, raw, err := c.do(ctx, cl)
		if err != nil {
			return nil, err
		}
		var page struct {
			Comments []Comment `json:"comments"`
			Total    int       `json:"total"`
		}
		if err := decodeStrict(cl, raw, &page, "comments", "total", "startAt"); err != nil {
			return nil, err
		}
		reached := false
		for _, cm := range page.Comments {
			if cm.ID == "" {
				return nil, fmt.Errorf("jira %s (%s): comment without id", cl.endpoint(), issueKey)
			}
			if !since.IsZero() && !cm.Created.After(since) {
				reached = true
				if !cm.Updated.After(since) {
					continue
				}
			}
			cm.Text = c.commentText(issueKey, cm)
			out = append(out, cm)
		}
		startAt += len(page.Comments)
		if reached || len(page.Comments) == 0 || startAt >= page.Total {
			return out, nil
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
