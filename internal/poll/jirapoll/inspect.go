package jirapoll

import (
	"context"
	"fmt"
	"strconv"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Inspect reads one issue the way a cycle would, without locking or
// writing anything (`fullsend status --issue`): one search returns it with
// the lock and lastCheck properties (and props, at most three more)
// inline, then Detect turns its changes since the checkpoint into events.
// An unknown issue is ErrNoIssue; a per-item detection error is the
// item's Err.
func (d *Driver) Inspect(ctx context.Context, key string, props ...string) (*poll.Item, jira.Issue, error) {
	jql, err := jira.KeyIn([]string{key})
	if err != nil {
		return nil, jira.Issue{}, err
	}
	req := jira.SearchRequest{JQL: jql, Fields: searchFields,
		Properties: append([]string{d.lockKey, d.checkKey}, props...), MaxResults: 1}
	issues, err := d.o.API.Search(ctx, req, 1)
	switch {
	case jira.IsBadRequest(err) || (err == nil && len(issues) == 0):
		return nil, jira.Issue{}, fmt.Errorf("%s: %w", key, ErrNoIssue)
	case err != nil:
		return nil, jira.Issue{}, apiStop("reading "+key, err)
	}
	is := issues[0]
	id, _ := strconv.ParseInt(is.ID, 10, 64)
	d.keep(map[string]*issueState{is.Key: {issue: is, id: id}})
	v := d.look(is, d.o.Now())
	it := &poll.Item{ID: is.Key, Cutoff: is.Fields.Updated.Time, Base: v.base, StaleLock: v.stale}
	if err := d.Detect(ctx, []*poll.Item{it}); err != nil {
		return nil, is, err
	}
	return it, is, nil
}
