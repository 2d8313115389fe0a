package jira

import "context"

// NewestComments reads one page of an issue's newest comments (at most
// 50, newest first, Text rendered) and how many it has: one call.
func (c *Client) NewestComments(ctx context.Context, issueKey string) ([]Comment, int, error) {
	return c.newestComments(ctx, issueKey)
}
