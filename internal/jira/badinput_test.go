package jira

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newTestClient(t *testing.T, h http.HandlerFunc) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL, Token: "sekret-token", MaxRetries: -1, Timeout: time.Second,
		MaxResponseBytes: 4096, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBadResponsesNameEndpoint(t *testing.T) {
	tests := []struct {
		name, ct, body string
		status         int
		want           string
	}{
		{"html login page", "text/html", "<html><body>Log in to continue</body></html>", 200, "unexpected content type text/html"},
		{"garbage json", "application/json", "{not json", 200, "malformed response"},
		{"truncated", "application/json", `{"accountId":"abc`, 200, "malformed response"},
		{"empty body", "application/json", "", 200, "empty response body"},
		{"missing accountId", "application/json", `{"displayName":"x"}`, 200, "no accountId"},
		{"wrong type", "application/json", `{"accountId":5}`, 200, "malformed response"},
		{"huge", "application/json", `{"accountId":"` + strings.Repeat("a", 5000) + `"}`, 200, "too large"},
		{"no content type", "", `{"accountId":"a"}`, 200, "content type none"},
		{"html error page", "text/html", "<html>Bad gateway</html>", 502, "HTTP 502"},
		{"jira 400", "application/json", `{"errorMessages":["bad"],"errors":{"jql":"worse"}}`, 400, "bad; jql: worse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.ct != "" {
					w.Header().Set("Content-Type", tc.ct)
				} else {
					w.Header()["Content-Type"] = nil
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			})
			_, err := c.Myself(context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, "GET /rest/api/3/myself") || !strings.Contains(msg, tc.want) {
				t.Errorf("err = %q, want endpoint and %q", msg, tc.want)
			}
			if strings.Contains(msg, "sekret-token") {
				t.Errorf("token leaked: %q", msg)
			}
		})
	}
}

func TestDecodersRejectMalformedShapes(t *testing.T) {
	tests := []struct {
		name string
		body string
		run  func(c *Client) error
	}{
		{"search issue without key", `{"issues":[{"id":"1"}],"isLast":true}`, func(c *Client) error {
			_, err := c.Search(context.Background(), SearchRequest{JQL: "project = P"}, 0)
			return err
		}},
		{"search bad time", `{"issues":[{"id":"1","key":"P-1","fields":{"created":"yesterday"}}],"isLast":true}`, func(c *Client) error {
			_, err := c.Search(context.Background(), SearchRequest{JQL: "project = P"}, 0)
			return err
		}},
		{"search repeated token", `{"issues":[{"id":"1","key":"P-1"}],"nextPageToken":"same","isLast":false}`, func(c *Client) error {
			_, err := c.Search(context.Background(), SearchRequest{JQL: "project = P"}, 0)
			return err
		}},
		{"property without value", `{"key":"p"}`, func(c *Client) error {
			_, _, err := c.GetProperty(context.Background(), "P-1", "p")
			return err
		}},
		{"comment without id", `{"comments":[{"body":"x"}],"total":1}`, func(c *Client) error {
			_, err := c.CommentsSince(context.Background(), "P-1", time.Time{})
			return err
		}},
		{"status without category", `{"id":"1","name":"x"}`, func(c *Client) error {
			_, err := c.StatusCategory(context.Background(), "x")
			return err
		}},
		{"roles not a map", `["a"]`, func(c *Client) error {
			_, err := c.RoleOf(context.Background(), "PR", "x")
			return err
		}},
		{"bulk unknown issue", `{"issueChangeLogs":[{"issueId":"999","changeHistories":[]}]}`, func(c *Client) error {
			_, err := c.BulkChangelogs(context.Background(), []string{"10"}, nil)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(tc.body))
			})
			if err := tc.run(c); err == nil || !strings.Contains(err.Error(), "jira") {
				t.Errorf("err = %v, want a jira error", err)
			}
		})
	}
}

func TestNewValidatesOptions(t *testing.T) {
	tests := []struct {
		opts Options
		want string
	}{
		{Options{BaseURL: "http://acme.atlassian.net", Token: "t"}, "only for loopback"},
		{Options{BaseURL: "https://acme.atlassian.net"}, "no API token"},
		{Options{BaseURL: "not a url", Token: "t"}, "base URL"},
	}
	for _, tc := range tests {
		if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) err = %v, want %q", tc.opts.BaseURL, err, tc.want)
		}
	}
	c, err := New(Options{BaseURL: "https://acme.atlassian.net/", Email: "a@b.c", Token: "t"})
	if err != nil || !strings.HasPrefix(c.auth, "Basic ") {
		t.Errorf("basic auth client: %v", err)
	}
}

func TestCrossOriginRedirectRefused(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("request reached another origin")
	}))
	defer other.Close()
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/rest/api/3/myself", http.StatusFound)
	})
	c.retry.MaxAttempts = 4 // 3 retries
	_, err := c.Myself(context.Background())
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("err = %v", err)
	}
	if n := c.CallsTotal(); n != 1 {
		t.Errorf("a refused redirect was tried %d times, want once (asking again cannot help)", n)
	}
}

func TestNearLimitSlowsDown(t *testing.T) {
	tests := []struct {
		name string
		hdr  map[string]string
		slow bool
	}{
		{"near limit flag", map[string]string{"X-RateLimit-NearLimit": "true"}, true},
		{"low remaining", map[string]string{"X-RateLimit-Remaining": "3", "X-RateLimit-Limit": "100"}, true},
		{"plenty remaining", map[string]string{"X-RateLimit-Remaining": "80", "X-RateLimit-Limit": "100"}, false},
		{"no headers", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.hdr {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"accountId":"a"}`))
			})
			if _, err := c.Myself(context.Background()); err != nil {
				t.Fatal(err)
			}
			if c.Slowed() != tc.slow {
				t.Errorf("slowed = %v, want %v", c.Slowed(), tc.slow)
			}
			if tc.slow && float64(c.limiter.Limit()) != c.rps/4 {
				t.Errorf("limit = %v", c.limiter.Limit())
			}
		})
	}
}

func TestNonRetryableCallNotRetried(t *testing.T) {
	n := 0
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		n++
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c.retry.MaxAttempts = 4 // 3 retries
	_, _, err := c.do(context.Background(), call{method: "POST", template: "/x", path: "/x", body: 1})
	if err == nil || n != 1 {
		t.Errorf("non-retryable call: err=%v attempts=%d", err, n)
	}
	n = 0
	_, _, err = c.do(context.Background(), call{method: "GET", template: "/x", path: "/x", retry: true})
	if err == nil || n != 4 {
		t.Errorf("retryable call: err=%v attempts=%d", err, n)
	}
}

func TestOnRequestHook(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"accountId":"a"}`))
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, Token: "t", OnRequest: func(ep string, st int, _ time.Duration) {
		got = append(got, ep+" "+http.StatusText(st))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Myself(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "GET /rest/api/3/myself OK" {
		t.Errorf("hook saw %v", got)
	}
}

func TestUnusableResponseNotRetried(t *testing.T) {
	n := 0
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>login</html>"))
	})
	c.retry.MaxAttempts = 4 // 3 retries
	if _, err := c.Myself(context.Background()); err == nil || n != 1 {
		t.Errorf("login page: err=%v attempts=%d, want one attempt", err, n)
	}
}

// A changelog answered by issue id belongs to the key it was asked for,
// even when a later search saw that id under another key (a moved issue)
// or the id cache was emptied meanwhile.
func TestBulkChangelogsKeyedByAskedKey(t *testing.T) {
	searches := 0
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/rest/api/3/search/jql":
			searches++
			key := "PROJ-1"
			if searches > 1 {
				key = "NEW-9"
			}
			w.Write([]byte(`{"issues":[{"id":"10001","key":"` + key + `","fields":{}}],"isLast":true}`))
		case "/rest/api/3/changelog/bulkfetch":
			w.Write([]byte(`{"issueChangeLogs":[{"issueId":"10001","changeHistories":[{"id":"1","created":"2024-05-02T10:11:12.345+0000","items":[{"field":"labels","fieldId":"labels"}]}]}]}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	ctx := context.Background()
	if _, err := c.Search(ctx, SearchRequest{JQL: "project = PROJ"}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Search(ctx, SearchRequest{JQL: "project = NEW"}, 0); err != nil {
		t.Fatal(err)
	}
	got, err := c.BulkChangelogs(ctx, []string{"PROJ-1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got["PROJ-1"]) != 1 || len(got) != 1 {
		t.Errorf("changelogs keyed %v, want them under the asked key PROJ-1", keysOf(got))
	}
}

func keysOf(m map[string][]History) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestTooManyRequestsSlowsDownEvenWithoutRetry(t *testing.T) {
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	})
	if _, err := c.Myself(context.Background()); err == nil {
		t.Fatal("429 accepted")
	}
	if !c.Slowed() {
		t.Error("a 429 that was not retried left the client at full rate")
	}
}
