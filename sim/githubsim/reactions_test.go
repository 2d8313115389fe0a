package githubsim

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// reactionCases are the contract cases of the reactions routes, on the
// world TestContractAgainstOpenAPI builds (a comment on issue 1).
func reactionCases(s *Server, repo string) []contractCase {
	c := "/issues/comments/" + itoa64(firstCommentID(s))
	cases := []contractCase{
		{"POST", repo + c + "/reactions", `{"content":"eyes"}`, tok, 201},
		{"POST", repo + c + "/reactions", `{"content":"eyes"}`, tok, 200},
		{"POST", repo + c + "/reactions", `{"content":"shrug"}`, tok, 422},
		{"GET", repo + c + "/reactions?content=eyes", "", tok, 200},
		{"GET", repo + "/issues/comments/99/reactions", "", tok, 404},
		{"POST", repo + "/issues/1/reactions", `{"content":"confused"}`, tok, 201},
		{"POST", repo + "/issues/1/reactions", `{"content":"confused"}`, tok, 200},
		{"GET", repo + "/issues/1/reactions", "", tok, 200},
		{"GET", repo + "/issues/99/reactions", "", tok, 404},
		{"POST", repo + "/issues/1/comments", `{"body":"set aside"}`, tok, 201},
		{"POST", repo + "/issues/1/comments", `{}`, tok, 422},
		{"POST", repo + "/issues/99/comments", `{"body":"x"}`, tok, 404},
	}
	return cases
}

// firstCommentID is the id of the first comment of any repository.
func firstCommentID(s *Server) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.repos {
		if len(st.comments) > 0 {
			return st.comments[0].ID
		}
	}
	return 0
}

// TestReactionsIdempotent: the token's account reacts once per content;
// asking again answers the existing reaction (200) and adds none, another
// content is a second reaction.
func TestReactionsIdempotent(t *testing.T) {
	s := New(Options{Token: tok, Login: "fullsend[bot]", Repos: []Repo{{FullName: "acme/platform"}}})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	_, _, err := s.OpenIssue("acme/platform", IssueSpec{Title: "bug", Author: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	id, _, err := s.AddComment("acme/platform", 1, "alice", "/fs-triage")
	if err != nil {
		t.Fatal(err)
	}
	before := s.IssueUpdatedAtForTest("acme/platform", 1)
	path := srv.URL + "/repos/acme/platform/issues/comments/" + itoa64(id) + "/reactions"
	for i, tc := range []struct {
		content string
		status  int
	}{{"eyes", 201}, {"eyes", 200}, {"eyes", 200}, {"rocket", 201}} {
		req, _ := http.NewRequest("POST", path, strings.NewReader(`{"content":"`+tc.content+`"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("request %d (%s): status %d, want %d", i, tc.content, resp.StatusCode, tc.status)
		}
	}
	got := s.CommentReactions("acme/platform", id)
	if len(got) != 2 || got[0].Content != "eyes" || got[0].User != "fullsend[bot]" || got[1].Content != "rocket" {
		t.Errorf("reactions %+v, want one eyes and one rocket by fullsend[bot]", got)
	}
	if after := s.IssueUpdatedAtForTest("acme/platform", 1); !after.Equal(before) {
		t.Errorf("a reaction moved the issue's updated_at from %v to %v", before, after)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
