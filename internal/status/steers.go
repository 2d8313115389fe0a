package status

import (
	"context"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// The steers of an item (docs/steering.md): the follow-ups the tool's own
// replies record as delivered into a running agent, each naming the run
// it reached, read from the item's newest comments.

// steering reports whether an enabled harness steers a running agent.
func (s *snapshotter) steering() bool {
	for _, h := range s.reg.All() {
		if h.Steer.Enabled {
			return true
		}
	}
	return false
}

// steers reads the item's newest comments (one call: the newest 50) and
// returns what the tool's own replies among them record, newest first;
// nil when no harness steers (nothing is read). A failed read is the
// report's SteersError, not the snapshot's.
func (s *snapshotter) steers(ctx context.Context, ji *jiraInput, r *IssueReport) {
	if !s.steering() {
		return
	}
	r.Steers = []steer.Delivered{}
	me, err := ji.client.Myself(ctx)
	if err != nil {
		r.SteersError = err.Error()
		return
	}
	cs, _, err := ji.client.NewestComments(ctx, r.Item)
	if err != nil {
		r.SteersError = err.Error()
		return
	}
	replies := make([]steer.Reply, 0, len(cs))
	for _, c := range cs {
		replies = append(replies, steer.Reply{Author: c.Author.AccountID, Body: c.Text, At: c.Created.UTC()})
	}
	r.Steers = append(r.Steers, steer.Steered(replies, me.AccountID)...)
}

// steerRows are the STEERS table's rows.
func steerRows(ds []steer.Delivered, now time.Time) [][]string {
	var rows [][]string
	for _, d := range ds {
		rows = append(rows, []string{orNone(d.Run), d.Harness, steer.IDOf(d.Comment), ago(d.At, now)})
	}
	return rows
}

// steersOf lists the comments recorded as delivered into run ref.
func steersOf(ds []steer.Delivered, ref plan.Ref) string {
	var ids []string
	for _, d := range ds {
		if d.Run == ref.Driver+"/"+ref.ID {
			ids = append(ids, steer.IDOf(d.Comment))
		}
	}
	return orNone(strings.Join(ids, ","))
}
