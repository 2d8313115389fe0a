package jirapoll

import (
	"context"
	"fmt"
	"slices"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/jirakey"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Detect implements poll.Driver. Its cost is one bulk changelog call for
// all items, the comments discovery's search returned inline (no call)
// or, when Jira returned only part of an item's, one newest-first comment
// listing that stops at the item's checkpoint, and cached lookups (the tool's own account, project
// roles, status categories). It only reads.
func (d *Driver) Detect(ctx context.Context, items []*poll.Item) error {
	items = handleable(items)
	if len(items) == 0 {
		return nil
	}
	me, err := d.o.API.Myself(ctx)
	if err != nil {
		return apiStop("reading the tool's own Jira account (/myself)", err)
	}
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = it.ID
	}
	hist, err := d.o.API.BulkChangelogs(ctx, keys, nil)
	if err != nil {
		return apiStop("fetching changelogs", err)
	}
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		if ctx.Err() != nil || stop.get() != nil {
			return
		}
		comments, err := d.listComments(ctx, it, hist[it.ID])
		if err != nil {
			classifyErr(it, "listing comments", err, &stop)
			return
		}
		m := &mapper{d: d, ctx: ctx, me: me.AccountID, it: it}
		changes, err := m.changes(hist[it.ID], comments)
		if err != nil {
			classifyErr(it, "mapping changes", err, &stop)
			return
		}
		markConsumed(changes, comments, me.AccountID)
		slices.SortStableFunc(changes, func(a, b poll.Change) int { return a.At.Compare(b.At) })
		it.Changes = changes
	})
	if err := stop.get(); err != nil {
		return err
	}
	return ctx.Err()
}

// handleable fails the items whose key is not an issue key the poller can
// name in JQL and lock (jirakey.ValidIssue) and returns the others:
// such an item fails alone, every cycle, never the batch it came with.
func handleable(items []*poll.Item) []*poll.Item {
	out := items[:0:0]
	for _, it := range items {
		if !jirakey.ValidIssue(it.ID) {
			it.Fail(fmt.Errorf("issue key %q is not a Jira issue key the poller can handle (a letter, letters, digits or underscores, a dash and a number)", it.ID))
			continue
		}
		out = append(out, it)
	}
	return out
}

// apiStop wraps a failure of a call the whole cycle depends on.
func apiStop(what string, err error) error {
	if jira.IsAuth(err) {
		return fmt.Errorf("%s: %w: %w", what, poll.ErrAuth, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
