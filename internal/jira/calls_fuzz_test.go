package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// jiraCalls are the client's calls, each as the poller, the runner or an
// entity resolution makes it.
var jiraCalls = map[string]func(ctx context.Context, c *Client, body []byte) error{
	"Myself": func(ctx context.Context, c *Client, _ []byte) error { _, err := c.Myself(ctx); return err },
	"Search": func(ctx context.Context, c *Client, _ []byte) error {
		_, err := c.Search(ctx, SearchRequest{JQL: "project = P", Properties: []string{"p"}, Expand: "changelog"}, 0)
		return err
	},
	"BulkChangelogs": func(ctx context.Context, c *Client, _ []byte) error {
		_, err := c.BulkChangelogs(ctx, []string{"10", "11"}, []string{"labels"})
		return err
	},
	"Changelog": func(ctx context.Context, c *Client, _ []byte) error { _, err := c.Changelog(ctx, "P-1"); return err },
	"CommentsSince": func(ctx context.Context, c *Client, _ []byte) error {
		_, err := c.CommentsSince(ctx, "P-1", time.Time{})
		return err
	},
	"CommentsSinceNewest": func(ctx context.Context, c *Client, _ []byte) error {
		_, _, _, err := c.CommentsSinceNewest(ctx, "P-1", time.Time{})
		return err
	},
	"ReadIssue": func(ctx context.Context, c *Client, _ []byte) error { _, err := c.ReadIssue(ctx, "P-1"); return err },
	"NewestComments": func(ctx context.Context, c *Client, _ []byte) error {
		_, _, err := c.NewestComments(ctx, "P-1")
		return err
	},
	// An issue a search returned, hostile itself, completed by more
	// reads answered the same way.
	"CompleteIssue": func(ctx context.Context, c *Client, body []byte) error {
		var is Issue
		if json.Unmarshal(body, &is) != nil {
			return nil
		}
		if is.Key == "" {
			is.Key = "P-1"
		}
		_, err := c.CompleteIssue(ctx, is)
		return err
	},
	"CommentsSinceInline": func(_ context.Context, c *Client, body []byte) error {
		var page CommentPage
		if json.Unmarshal(body, &page) == nil {
			c.CommentsSinceInline("P-1", &page, time.Time{})
		}
		return nil
	},
	"ProjectRoleMembers": func(ctx context.Context, c *Client, _ []byte) error {
		_, err := c.ProjectRoleMembers(ctx, "P")
		return err
	},
	"CachedProjectRoleMembers": func(ctx context.Context, c *Client, _ []byte) error {
		_, err := c.CachedProjectRoleMembers(ctx, "P")
		return err
	},
	"RoleOf": func(ctx context.Context, c *Client, _ []byte) error {
		_, err := c.RoleOf(ctx, "P", "acc-1")
		return err
	},
	"StatusCategory": func(ctx context.Context, c *Client, _ []byte) error {
		_, err := c.StatusCategory(ctx, "Done")
		return err
	},
	"GetProperty": func(ctx context.Context, c *Client, _ []byte) error {
		_, _, err := c.GetProperty(ctx, "P-1", "fullsend.poll.acme.platform.lock")
		return err
	},
	"GetOwnerProperty": func(ctx context.Context, c *Client, _ []byte) error {
		_, _, err := c.GetOwnerProperty(ctx, Owner{Kind: OwnerUser, ID: "acc-1"}, "fullsend.poll.acme.platform.cursor")
		return err
	},
	"SetProperty": func(ctx context.Context, c *Client, _ []byte) error {
		return c.SetProperty(ctx, "P-1", "fullsend.poll.acme.platform.lock", map[string]string{"id": "x"})
	},
	"SetOwnerProperty": func(ctx context.Context, c *Client, _ []byte) error {
		return c.SetOwnerProperty(ctx, Owner{Kind: OwnerProject, ID: "P"}, "fullsend.poll.acme.platform.cursor", map[string]string{"at": "x"})
	},
	"DeleteProperty": func(ctx context.Context, c *Client, _ []byte) error {
		_, err := c.DeleteProperty(ctx, "P-1", "fullsend.poll.acme.platform.lock")
		return err
	},
	"AddComment": func(ctx context.Context, c *Client, _ []byte) error {
		_, err := c.AddComment(ctx, "P-1", "x")
		return err
	},
}

// FuzzClientCalls drives every call of the client through a server
// answering the fuzzed status and body, on a fresh client each time (no
// cache carries one input's answers into the next): no call panics, and
// every failure says it is Jira's.
func FuzzClientCalls(f *testing.F) {
	for _, s := range []string{
		`{"issues":[null],"isLast":true}`, `{"issues":[{"id":"1","key":"P-1","fields":{"comment":{"comments":[null],"total":5}}}],"isLast":true}`,
		`{"id":"1","key":"P-1","fields":{"comment":{"comments":[],"total":-1,"startAt":9}},"changelog":{"histories":[null],"total":1}}`,
		`{"values":[null],"isLast":false}`, `{"values":[{"id":"1","created":"2024-05-02T10:11:12.345+0000","items":[null]}],"isLast":true}`,
		`{"issueChangeLogs":[null]}`, `{"comments":[null],"total":1,"startAt":0}`, `{"comments":[{"id":"1","body":[1]}],"total":1}`,
		`{"actors":[null]}`, `{"Developers":"https://x/rest/api/3/project/P/role/10001"}`, `{"key":"p","value":null}`,
		`{"id":"1","statusCategory":null}`, `{"accountId":"a"}`, `null`, `[]`, `{}`, `"x"`, `{"errorMessages":[null],"errors":{"a":null}}`,
	} {
		f.Add(uint16(200), []byte(s))
	}
	f.Add(uint16(400), []byte(`{"errorMessages":["bad"],"errors":{"jql":[1]}}`))
	f.Add(uint16(404), []byte(`{}`))
	var mu sync.Mutex
	var status int
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, st uint16, b []byte) {
		if st < 200 || st > 599 {
			st = 200
		}
		mu.Lock()
		status, body = int(st), b
		mu.Unlock()
		c, err := New(Options{BaseURL: srv.URL, Token: "sekret-token", MaxRetries: -1, Timeout: 5 * time.Second,
			MaxResponseBytes: 1 << 20, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for name, call := range jiraCalls {
			if err := call(ctx, c, b); err != nil && !strings.Contains(err.Error(), "jira") {
				t.Errorf("%s: %v does not say it is Jira's", name, err)
			}
		}
	})
}

// TestListingsStopAtMaxPages: a server that announces another page for
// ever (a new page token each time, isLast false, a total never reached)
// makes each listing fail after maxPages pages, instead of reading and
// holding without end.
func TestListingsStopAtMaxPages(t *testing.T) {
	tests := []struct {
		name string
		body string // %d: the request's number, for a page token of its own
		call func(ctx context.Context, c *Client) error
	}{
		{"changelog", `{"values":[{"id":"%d","created":"2024-05-02T10:11:12.345+0000"}],"isLast":false}`,
			func(ctx context.Context, c *Client) error { _, err := c.Changelog(ctx, "P-1"); return err }},
		{"comments", `{"comments":[{"id":"%d","created":"2024-05-02T10:11:12.345+0000"}],"total":1000000000,"startAt":0}`,
			func(ctx context.Context, c *Client) error {
				_, err := c.CommentsSince(ctx, "P-1", time.Time{})
				return err
			}},
		{"search", `{"issues":[{"id":"1","key":"P-1"}],"nextPageToken":"t%d","isLast":false}`,
			func(ctx context.Context, c *Client) error {
				_, err := c.Search(ctx, SearchRequest{JQL: "project = P"}, 0)
				return err
			}},
		{"bulk changelogs", `{"issueChangeLogs":[],"nextPageToken":"t%d"}`,
			func(ctx context.Context, c *Client) error {
				_, err := c.BulkChangelogs(ctx, []string{"10"}, nil)
				return err
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			c := newTestClient(t, func(w http.ResponseWriter, _ *http.Request) {
				mu.Lock()
				n++
				body := fmt.Sprintf(tc.body, n)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := tc.call(ctx, c)
			if err == nil || !strings.Contains(err.Error(), "more than 1000 pages") {
				t.Fatalf("err = %v, want the listing stopped after %d pages", err, maxPages)
			}
			if n != maxPages {
				t.Errorf("%d requests, want %d", n, maxPages)
			}
		})
	}
}
