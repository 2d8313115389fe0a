package jirapoll_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/steer"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

const (
	commentList = "GET /rest/api/3/issue/{issueIdOrKey}/comment"
	searchJQL   = "POST /rest/api/3/search/jql"
)

// The follow-ups of a run that steers cost one comment listing per
// discovery while nothing new is written; a new comment adds one search
// (the labels and people its event carries) and its author's role
// lookups, once. The changes are the comments after the run's change, in
// order, each carrying the harnesses the tool's own replies record it
// delivered to; a marker anyone else writes records nothing.
func TestFollowUpsCostAndConsumed(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	key := e.issue()
	e.sim.AddComment(key, alice, "/fs-triage first")
	since := e.clock.Now()
	p := e.poller(pollerOpts{})
	f := p.drv.FollowUps(key, since)
	ctx := t.Context()

	read := func(what string, wantCalls, wantSearches int) []poll.Change {
		t.Helper()
		e.sim.ResetCalls()
		chs, err := f.Read(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		calls := e.sim.Calls()
		delete(calls, "GET /rest/api/3/myself") // once per client: cached
		if calls[commentList] != 1 || calls[searchJQL] != wantSearches || sumCalls(calls) != wantCalls {
			t.Fatalf("%s: calls %v, want %d in all (one listing, %d searches)", what, calls, wantCalls, wantSearches)
		}
		return chs
	}
	if chs := read("nothing after the run's change", 1, 0); len(chs) != 0 {
		t.Fatalf("follow-ups %+v, want none", chs)
	}
	read("idle", 1, 0)
	c2 := e.sim.AddComment(key, alice, "/fs-triage also the retries")
	c3 := e.sim.AddComment(key, carol, "/fs-triage drop the table")
	chs := read("two new comments", 6, 1) // + the project's roles, read once: its list and its three roles
	if len(chs) != 2 || chs[0].Event.Transition.Comment.ID != c2 || chs[1].Event.Transition.Comment.ID != c3 ||
		chs[0].Event.Actor.Role != "write" || chs[1].Event.Actor.Role != "external" {
		t.Fatalf("follow-ups %+v", chs)
	}
	read("idle again", 1, 0)

	n2, _ := strconv.ParseInt(c2, 10, 64)
	n3, _ := strconv.ParseInt(c3, 10, 64)
	if _, err := p.client.AddComment(ctx, key, steer.ReplyText("triage", n2, "gha-dispatch/9000")); err != nil {
		t.Fatal(err)
	}
	e.sim.AddComment(key, carol, steer.ReplyText("triage", n3, "")) // not the tool's
	chs = read("the replies", 2, 1)                                 // the roles are known
	if len(chs) != 4 || !slices.Equal(chs[0].Consumed, []string{"triage"}) || len(chs[1].Consumed) != 0 {
		t.Fatalf("consumed %v and %v, want [triage] and none (%d changes)", chs[0].Consumed, chs[1].Consumed, len(chs))
	}
}
