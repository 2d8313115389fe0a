package github

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/httpx/httpxtest"
)

// ghCalls are the go-github calls fullsend makes, as it makes them (and
// the raw listings github-poll and gha-dispatch decode themselves); each
// returns what go-github decoded.
var ghCalls = map[string]func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error){
	"Users.Get": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Users.Get(ctx, "")
	},
	"RateLimit.Get": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.RateLimit.Get(ctx)
	},
	"Repositories.Get": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Repositories.Get(ctx, "acme", "platform")
	},
	"Repositories.GetPermissionLevel": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Repositories.GetPermissionLevel(ctx, "acme", "platform", "alice")
	},
	"Issues.Get": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Issues.Get(ctx, "acme", "platform", 7)
	},
	"Issues.ListComments": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Issues.ListComments(ctx, "acme", "platform", 7, &gogithub.IssueListCommentsOptions{})
	},
	"Issues.ListIssueEvents": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Issues.ListIssueEvents(ctx, "acme", "platform", 7, &gogithub.ListOptions{})
	},
	"Issues.CreateComment": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Issues.CreateComment(ctx, "acme", "platform", 7, &gogithub.IssueComment{Body: gogithub.Ptr("x")})
	},
	"PullRequests.Get": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.PullRequests.Get(ctx, "acme", "platform", 7)
	},
	"PullRequests.ListReviews": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.PullRequests.ListReviews(ctx, "acme", "platform", 7, &gogithub.ListOptions{})
	},
	"Reactions.CreateIssueReaction": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Reactions.CreateIssueReaction(ctx, "acme", "platform", 7, "eyes")
	},
	"Reactions.CreateIssueCommentReaction": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Reactions.CreateIssueCommentReaction(ctx, "acme", "platform", 70, "eyes")
	},
	"Actions.ListWorkflowRunsByFileName": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Actions.ListWorkflowRunsByFileName(ctx, "acme", "platform", "run.yml", &gogithub.ListWorkflowRunsOptions{})
	},
	"Actions.CreateWorkflowDispatchEventByFileName": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		return c.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "platform", "run.yml",
			gogithub.CreateWorkflowDispatchEventRequest{Ref: "main"})
	},
	"Actions.CancelWorkflowRunByID": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		resp, err := c.Actions.CancelWorkflowRunByID(ctx, "acme", "platform", 11)
		return nil, resp, err
	},
	"raw listing": func(ctx context.Context, c *gogithub.Client) (any, *gogithub.Response, error) {
		req, err := c.NewRequest(ctx, http.MethodGet, "repos/acme/platform/issues", nil)
		if err != nil {
			return nil, nil, err
		}
		var page []json.RawMessage
		resp, err := c.Do(req, &page)
		return page, resp, err
	},
}

// ghServer answers every request the same way (httpxtest.Canned),
// through a client of NewClient.
type ghServer struct {
	*httpxtest.Canned
	c *gogithub.Client
}

func newGHServer(tb testing.TB) *ghServer {
	tb.Helper()
	s := &ghServer{Canned: httpxtest.NewCanned(tb)}
	tr := &http.Transport{}
	tb.Cleanup(tr.CloseIdleConnections)
	c, err := NewClient(s.URL, "secret-token", ClientOptions{HTTPClient: &http.Client{Transport: tr, Timeout: 5 * time.Second}})
	if err != nil {
		tb.Fatal(err)
	}
	s.c = c
	return s
}

func (s *ghServer) set(status int, body, link string) { s.Set(status, body, "Link", link) }

// TestMalformedAnswers: a success answer holding a null where an array
// element should be (top level or nested) fails its call, as a Permanent
// failure of a call that took effect (never retried, never a refusal);
// the same answer without the null decodes.
func TestMalformedAnswers(t *testing.T) {
	s, ctx := newGHServer(t), context.Background()
	bodies := []struct{ bad, good string }{
		{`[null]`, `[]`},
		{`[{"id":1},null]`, `[{"id":1}]`},
		{`{"total_count":1,"workflow_runs":[null]}`, `{"total_count":0,"workflow_runs":[]}`},
		{`{"id":1,"labels":[{"name":"a"},null]}`, `{"id":1,"labels":[{"name":"a"}]}`},
	}
	for name, call := range ghCalls {
		for _, b := range bodies {
			s.set(200, b.bad, "")
			var f *Failure
			_, err := Call(ctx, Policy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }},
				func(ctx context.Context) (*gogithub.Response, error) {
					_, resp, err := call(ctx, s.c)
					return resp, err
				})
			var me *MalformedError
			if !errors.As(err, &f) || !errors.As(err, &me) || f.Class != Permanent || f.Attempts != 1 || f.Refused() {
				t.Errorf("%s answered %s: %#v, want one attempt failing as a malformed answer that took effect", name, b.bad, err)
			}
			s.set(200, b.good, "")
			if _, _, err := call(ctx, s.c); err != nil && !strings.Contains(err.Error(), "json") {
				t.Errorf("%s answered %s: %v", name, b.good, err)
			}
		}
	}
}

// FuzzAnswers drives every go-github call fullsend makes through a real
// client against a server answering the fuzzed status, body and Link
// header: nothing panics, and a successful listing holds no nil element.
func FuzzAnswers(f *testing.F) {
	for _, b := range []string{`[null]`, `{"workflow_runs":[null]}`, `[{"id":"x"}]`, `[{"created_at":"yesterday"}]`,
		`[{"created_at":99999999999999}]`, `{"permission":7}`, `null`, `[]`, `{}`, `"x"`, `{"message":"x","errors":["a",{"b":1}]}`} {
		f.Add(uint8(0), b, "")
	}
	f.Add(uint8(0), `[]`, `<https://api.github.com/x?page=2>; rel="next", <:bad>; rel="last", <x>`)
	f.Add(uint8(3), `{"message":"rate","documentation_url":"x"}`, "")
	s, ctx := newGHServer(f), context.Background()
	statuses := []int{200, 201, 202, 204, 403, 404, 422, 409}
	f.Fuzz(func(t *testing.T, status uint8, body, link string) {
		if strings.ContainsAny(link, "\r\n\x00") {
			return
		}
		s.set(statuses[int(status)%len(statuses)], body, link)
		for name, call := range ghCalls {
			v, _, err := call(ctx, s.c)
			if err != nil || v == nil {
				continue
			}
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Pointer {
				for i := range rv.Len() {
					if rv.Index(i).IsNil() {
						t.Fatalf("%s: element %d of a successful listing is nil", name, i)
					}
				}
			}
		}
	})
}

// FuzzNullElement: on any valid JSON the byte scanner finds a null array
// element exactly when a tokenizer does.
func FuzzNullElement(f *testing.F) {
	for _, s := range []string{`[null]`, `[1, null]`, `{"a":null}`, `{"a":[{"b":null}, null]}`, `"[null]"`, `["\"", null]`,
		`["\\", null]`, `[[], [null]]`, `null`, `[ null ]`, `{"n":["null"]}`, `[true,false,nullx]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			nullElement(body) // must not panic
			return
		}
		_, got := nullElement(body)
		if want := tokenNull(body); got != want {
			t.Fatalf("nullElement(%s) = %v, the tokenizer says %v", body, got, want)
		}
	})
}

// tokenNull is the reference: a null token directly inside an array.
func tokenNull(body []byte) bool {
	dec := json.NewDecoder(strings.NewReader(string(body)))
	var arrays []bool
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			arrays = append(arrays, tok == json.Delim('['))
		case json.Delim(']'), json.Delim('}'):
			arrays = arrays[:len(arrays)-1]
		case nil:
			if len(arrays) > 0 && arrays[len(arrays)-1] {
				return true
			}
		}
	}
}
