package jirapoll

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// FollowUps reads one issue's follow-ups for a run that steers
// (docs/steering.md): the comments created after the run's change,
// mapped the way a cycle maps them. Only comments steer, so neither the
// changelog nor anything else a cycle detects is read.
type FollowUps struct {
	d     *Driver
	key   string
	since time.Time
	// mapped are the changes of the comments mapped before, by id, with
	// the time the comment was last updated when it was.
	mapped map[string]mappedComment
}

type mappedComment struct {
	updated time.Time
	change  poll.Change
}

// RunFollowUps is runner.Request.JiraFollowUps: the follow-up reader of
// a run that steers on Jira, over a driver built from the run's client
// and jira-poll input.
func RunFollowUps(j runner.JiraIssue) (runner.FollowUpReader, error) {
	id := j.Input
	drv, err := New(Options{API: j.Client, SiteURL: id.Connection.BaseURL, Repo: j.Repo,
		Project: id.Project, Queries: id.Queries, StaleThreshold: id.Lock.StaleThreshold, PollerID: "fullsend-run-steer",
		Now: j.Now, Log: j.Log})
	if err != nil {
		return nil, err
	}
	return drv.FollowUps(j.Key, j.Since), nil
}

// FollowUps returns the follow-up reader of issue key for a run whose
// change is at since (on Jira's clock).
func (d *Driver) FollowUps(key string, since time.Time) *FollowUps {
	return &FollowUps{d: d, key: key, since: since, mapped: map[string]mappedComment{}}
}

// Read lists the issue's comments after the run's change, newest first
// and stopping there (one call, while nothing new was written), and
// returns them as changes in order, each carrying in Consumed the
// harnesses the tool's own replies among them record it as delivered to
// (markConsumed). Only when a comment is new (or edited) since the last
// Read is the issue searched (one call: the labels and people an event
// carries) and the comment mapped, its author's role looked up (cached).
// It only reads.
func (f *FollowUps) Read(ctx context.Context) ([]poll.Change, error) {
	cs, err := f.d.o.API.CommentsSince(ctx, f.key, f.since)
	if err != nil {
		return nil, apiStop("listing the comments of "+f.key, err)
	}
	var fresh []jira.Comment
	for _, c := range cs {
		if m, ok := f.mapped[c.ID]; !c.Created.After(f.since) || (ok && m.updated.Equal(c.Updated.Time)) {
			continue
		}
		fresh = append(fresh, c)
	}
	if len(fresh) > 0 {
		if err := f.mapFresh(ctx, fresh); err != nil {
			return nil, err
		}
	}
	me, err := f.d.o.API.Myself(ctx)
	if err != nil {
		return nil, apiStop("reading the tool's own Jira account (/myself)", err)
	}
	var out []poll.Change
	for _, c := range jira.SortComments(cs, false) {
		if m, ok := f.mapped[c.ID]; ok && c.Created.After(f.since) {
			out = append(out, m.change)
		}
	}
	markConsumed(out, cs, me.AccountID)
	return out, nil
}

// mapFresh searches the issue and maps the comments in fresh.
func (f *FollowUps) mapFresh(ctx context.Context, fresh []jira.Comment) error {
	jql, err := jira.KeyIn([]string{f.key})
	if err != nil {
		return err
	}
	issues, err := f.d.o.API.Search(ctx, jira.SearchRequest{JQL: jql, Fields: searchFields, MaxResults: 1}, 1)
	if err != nil {
		return apiStop("reading "+f.key, err)
	}
	if len(issues) == 0 {
		return fmt.Errorf("%s: %w", f.key, ErrNoIssue)
	}
	is := issues[0]
	id, _ := strconv.ParseInt(is.ID, 10, 64)
	f.d.keep(map[string]*issueState{is.Key: {issue: is, id: id}})
	me, err := f.d.o.API.Myself(ctx)
	if err != nil {
		return apiStop("reading the tool's own Jira account (/myself)", err)
	}
	it := &poll.Item{ID: is.Key, Cutoff: is.Fields.Updated.Time, Base: poll.Checkpoint{At: f.since}}
	m := &mapper{d: f.d, ctx: ctx, me: me.AccountID, it: it}
	changes, err := m.changes(nil, fresh)
	if err != nil {
		return err
	}
	updated := make(map[string]time.Time, len(fresh))
	for _, c := range fresh {
		updated[c.ID] = c.Updated.Time
	}
	for _, ch := range changes {
		if cm := ch.Event.Transition.Comment; cm != nil {
			f.mapped[cm.ID] = mappedComment{updated: updated[cm.ID], change: ch}
		}
	}
	return nil
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
