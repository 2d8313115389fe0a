package jira

import (
	"context"
	"encoding/json"
	"fmt"
)

// AddComment posts a comment whose text becomes ADF paragraphs (one per
// line) on the issue, as the client's account, and returns its id
// (POST /rest/api/3/issue/{issueIdOrKey}/comment). It is a write that
// is never repeated: a lost answer may have created the comment, so a
// caller that must not post twice looks for it first.
func (c *Client) AddComment(ctx context.Context, issueKey, text string) (string, error) {
	if issueKey == "" {
		return "", fmt.Errorf("jira add comment: empty issue key")
	}
	cl := call{method: "POST", template: "/rest/api/3/issue/{issueIdOrKey}/comment",
		path: "/rest/api/3/issue/" + pathEscape(issueKey) + "/comment",
		body: map[string]json.RawMessage{"body": TextToADF(text)}}
	_, raw, err := c.do(ctx, cl)
	if err != nil {
		return "", err
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.ID == "" {
		return "", fmt.Errorf("jira %s (%s): answer without a comment id", cl.endpoint(), issueKey)
	}
	return out.ID, nil
}
