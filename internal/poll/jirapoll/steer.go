package jirapoll

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// FollowUps reads issue key's changes after since the way a cycle maps
// them (one search, then Detect's reads: the changelog, the comments
// after since, the cached roles), for a run that steers
// (docs/steering.md). Changes the tool's own replies record as delivered
// carry their harnesses in Consumed. It only reads.
func (d *Driver) FollowUps(ctx context.Context, key string, since time.Time) ([]poll.Change, error) {
	jql, err := jira.KeyIn([]string{key})
	if err != nil {
		return nil, err
	}
	issues, err := d.o.API.Search(ctx, jira.SearchRequest{JQL: jql, Fields: searchFields, MaxResults: 1}, 1)
	if err != nil {
		return nil, apiStop("reading "+key, err)
	}
	if len(issues) == 0 {
		return nil, fmt.Errorf("%s: %w", key, ErrNoIssue)
	}
	is := issues[0]
	id, _ := strconv.ParseInt(is.ID, 10, 64)
	d.keep(map[string]*issueState{is.Key: {issue: is, id: id}})
	it := &poll.Item{ID: is.Key, Cutoff: is.Fields.Updated.Time, Base: poll.Checkpoint{At: since}}
	if err := d.Detect(ctx, []*poll.Item{it}); err != nil {
		return nil, err
	}
	return it.Changes, it.Err()
}

// markConsumed sets Consumed on the comment changes that the tool's own
// replies among cs (author me) record as delivered into a run
// (steer.Marker): the next cycle starts no run of those harnesses for
// them. A marker anyone else wrote records nothing.
func markConsumed(changes []poll.Change, cs []jira.Comment, me string) {
	replies := make([]steer.Reply, 0, len(cs))
	for _, c := range cs {
		replies = append(replies, steer.Reply{Author: c.Author.AccountID, Body: c.Text})
	}
	marked := steer.MarkedBy(replies, me)
	if len(marked) == 0 {
		return
	}
	for i, ch := range changes {
		cm := ch.Event.Transition.Comment
		if cm == nil {
			continue
		}
		if n, err := strconv.ParseInt(cm.ID, 10, 64); err == nil {
			changes[i].Consumed = marked[n]
		}
	}
}
