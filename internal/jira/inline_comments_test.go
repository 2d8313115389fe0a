package jira_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// TestCommentsSinceInline: the comments a search returns inline answer
// the listing exactly (same changes, same newest page, same total) when
// they are all of the issue's, and are refused when Jira returned only
// part of them.
func TestCommentsSinceInline(t *testing.T) {
	for _, tc := range []struct {
		name     string
		limit    int // jirasim.Options.IssueComments
		comments int
		since    int // index of the comment the checkpoint is at; -1: none
		edit     int // index of a comment edited after since; -1: none
		whole    bool
	}{
		{name: "no comments", comments: 0, since: -1, edit: -1, whole: true},
		{name: "all new", comments: 3, since: -1, edit: -1, whole: true},
		{name: "after a checkpoint", comments: 5, since: 2, edit: -1, whole: true},
		{name: "an older comment edited", comments: 5, since: 3, edit: 1, whole: true},
		{name: "more than a listing page", comments: 120, since: 30, edit: 10, whole: true},
		{name: "partial inline page", limit: 2, comments: 3, since: -1, edit: -1, whole: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			tick := func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				now = now.Add(time.Second)
				return now
			}
			s, c, _ := newPair(t, jirasim.Options{IssueComments: tc.limit, Now: tick}, nil)
			s.AddProject("PROJ", "Project")
			key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "s", Reporter: "alice"})
			var ids []string
			var since time.Time
			for i := range tc.comments {
				ids = append(ids, s.AddComment(key, "alice", "comment"))
				if i == tc.since {
					since = tick()
				}
			}
			if tc.edit >= 0 {
				s.EditComment(key, ids[tc.edit], "alice", "edited")
			}
			found, err := c.Search(t.Context(), jira.SearchRequest{JQL: "key = " + key, Fields: []string{"updated", "comment"}}, 1)
			if err != nil || len(found) != 1 {
				t.Fatalf("search: %v, %d issues", err, len(found))
			}
			changed, newest, total, ok := c.CommentsSinceInline(key, found[0].Fields.Comment, since)
			if ok != tc.whole {
				t.Fatalf("ok = %v, want %v", ok, tc.whole)
			}
			if !ok {
				return
			}
			wantChanged, wantNewest, wantTotal, err := c.CommentsSinceNewest(t.Context(), key, since)
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal {
				t.Errorf("total = %d, listing says %d", total, wantTotal)
			}
			idsOf := func(cs []jira.Comment) []string {
				out := []string{}
				for _, cm := range cs {
					if cm.Text == "" {
						t.Errorf("comment %s without its text", cm.ID)
					}
					out = append(out, cm.ID)
				}
				return out
			}
			if got, want := idsOf(changed), idsOf(wantChanged); !slices.Equal(got, want) {
				t.Errorf("changed = %v, listing gives %v", got, want)
			}
			if got, want := idsOf(newest), idsOf(wantNewest); !slices.Equal(got, want) {
				t.Errorf("newest = %v, listing gives %v", got, want)
			}
		})
	}
}

// TestCommentsSinceInlineWithoutPage: an issue read without its comment
// field is never taken for one without comments.
func TestCommentsSinceInlineWithoutPage(t *testing.T) {
	_, c, _ := newPair(t, jirasim.Options{}, nil)
	if _, _, _, ok := c.CommentsSinceInline("PROJ-1", nil, time.Time{}); ok {
		t.Error("ok = true for an issue read without its comment field")
	}
	page := &jira.CommentPage{StartAt: 1, Total: 1}
	if _, _, _, ok := c.CommentsSinceInline("PROJ-1", page, time.Time{}); ok {
		t.Error("ok = true for a page that starts past the first comment")
	}
}
