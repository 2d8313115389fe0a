package githubentity

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/github"
)

// A listing whose Link header names no last page is followed page by
// page; past MaxPages its newest items cannot be reached, which fails.
func TestNewestWithoutLastPage(t *testing.T) {
	tests := []struct {
		pages int
		calls int
		fails bool
	}{
		{1, 1, false},
		{MaxPages, MaxPages, false},
		{MaxPages + 2, MaxPages, true},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.pages), func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				page, _ := strconv.Atoi(r.URL.Query().Get("page"))
				if page < tt.pages {
					w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?page=%d>; rel="next"`, r.Host, r.URL.Path, page+1))
				}
				fmt.Fprintf(w, `[{"id":%d}]`, page)
			}))
			defer srv.Close()
			c, err := github.NewClient(srv.URL, "", github.ClientOptions{HTTPClient: srv.Client()})
			must(t, err)
			r := New(c, Options{Policy: github.Policy{MaxRetries: -1}})
			items, cut, err := newest(context.Background(), r, "things", func(ctx context.Context, lo gogithub.ListOptions) ([]*gogithub.IssueComment, *gogithub.Response, error) {
				return c.Issues.ListComments(ctx, "o", "r", 1, &gogithub.IssueListCommentsOptions{ListOptions: lo})
			})
			if calls != tt.calls || (err != nil) != tt.fails || cut {
				t.Fatalf("%d calls, error %v, cut %v; want %d calls, failing %v", calls, err, cut, tt.calls, tt.fails)
			}
			if tt.fails {
				if !strings.Contains(err.Error(), "named no last page") {
					t.Errorf("error %v does not say why", err)
				}
				return
			}
			if len(items) != tt.pages || items[len(items)-1].GetID() != int64(tt.pages) {
				t.Errorf("%d items, want one per page", len(items))
			}
		})
	}
}
