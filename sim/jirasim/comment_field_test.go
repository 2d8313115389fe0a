package jirasim

import (
	"encoding/json"
	"sync"
	"testing"
	"time"
)

// TestSearchCommentFieldLags: the comment field of a lagging search is the
// issue's as its search version had it (the comments made up to that
// version's update time); a reconciled search and an issue read are
// current.
func TestSearchCommentFieldLags(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s, base := started(t, Options{SearchLag: time.Second, Now: clock})
	key := s.AddIssue(IssueSpec{Project: "PROJ"})
	s.AddComment(key, "u", "first")
	advance(2 * time.Second)
	s.AddComment(key, "u", "second")
	id := s.IssueID(key)
	for _, tc := range []struct {
		name, method, path, body string
		total                    int
	}{
		{name: "lagging search", method: "POST", path: "/rest/api/3/search/jql",
			body: `{"jql":"key = ` + key + `","fields":["comment"]}`, total: 1},
		{name: "reconciled search", method: "POST", path: "/rest/api/3/search/jql",
			body: `{"jql":"key = ` + key + `","fields":["comment"],"reconcileIssues":[` + id + `]}`, total: 2},
		{name: "issue read", method: "GET", path: "/rest/api/3/issue/" + key + "?fields=comment", total: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := do(t, base, tc.method, tc.path, "Bearer x", tc.body)
			var page struct {
				Comment struct {
					Total    int   `json:"total"`
					Comments []any `json:"comments"`
				} `json:"comment"`
			}
			var out struct {
				Issues []struct {
					Fields json.RawMessage `json:"fields"`
				} `json:"issues"`
				Fields json.RawMessage `json:"fields"`
			}
			if code != 200 || json.Unmarshal([]byte(body), &out) != nil {
				t.Fatalf("%d %s", code, body)
			}
			fields := out.Fields
			if len(out.Issues) == 1 {
				fields = out.Issues[0].Fields
			}
			if json.Unmarshal(fields, &page) != nil || page.Comment.Total != tc.total || len(page.Comment.Comments) != tc.total {
				t.Errorf("comment field = %s, want %d comments", fields, tc.total)
			}
		})
	}
}
