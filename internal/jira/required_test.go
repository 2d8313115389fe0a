package jira

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A 200 whose page lacks its list (or its paging fields) is an error, never
// an empty result: a `{}` read as "no comments" would let lastCheck pass a
// comment nobody saw.
func TestPagesMissingRequiredFieldsAreErrors(t *testing.T) {
	ctx := context.Background()
	comments := func(c *Client) error { _, err := c.CommentsSince(ctx, "P-1", time.Time{}); return err }
	changelog := func(c *Client) error { _, err := c.Changelog(ctx, "P-1"); return err }
	search := func(c *Client) error { _, err := c.Search(ctx, SearchRequest{JQL: "project = P"}, 0); return err }
	bulk := func(c *Client) error { _, err := c.BulkChangelogs(ctx, []string{"10001"}, nil); return err }
	tests := []struct {
		name, body string
		run        func(*Client) error
		want       string // "" means no error expected
	}{
		{"comments empty object", `{}`, comments, `no "comments" field`},
		{"comments null list", `{"comments":null,"total":0,"startAt":0}`, comments, `no "comments" field`},
		{"comments without total", `{"comments":[],"startAt":0}`, comments, `no "total" field`},
		{"comments without startAt", `{"comments":[],"total":0}`, comments, `no "startAt" field`},
		{"comments really empty", `{"comments":[],"total":0,"startAt":0,"maxResults":50}`, comments, ""},
		{"changelog empty object", `{}`, changelog, `no "values" field`},
		{"changelog really empty", `{"values":[],"total":0,"startAt":0,"isLast":true}`, changelog, ""},
		{"search empty object", `{}`, search, `no "issues" field`},
		{"search really empty", `{"issues":[],"isLast":true}`, search, ""},
		{"bulk changelog empty object", `{}`, bulk, `no "issueChangeLogs" field`},
		{"bulk changelog really empty", `{"issueChangeLogs":[]}`, bulk, ""},
		{"not an object", `[]`, comments, "malformed response"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(tc.body))
			})
			err := tc.run(c)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("no error for %s", tc.body)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("err = %q, want %q", err, tc.want)
			}
		})
	}
}
