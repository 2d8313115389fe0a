package githubsim

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEntityStateContract: assignees, drafts and merges show in the
// issue, pull request and issue event answers, in the shapes GitHub's
// description gives.
func TestEntityStateContract(t *testing.T) {
	s := New(Options{Token: tok, Repos: []Repo{{FullName: "acme/platform"}}})
	srv := httptest.NewServer(newContractValidator(t, s))
	defer srv.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := s.OpenIssue("acme/platform", IssueSpec{Title: "bug", Author: "alice"})
	must(err)
	_, _, err = s.OpenIssue("acme/platform", IssueSpec{Title: "draft", Author: "alice", PullRequest: true})
	must(err)
	_, _, err = s.OpenIssue("acme/platform", IssueSpec{Title: "merged", Author: "alice", PullRequest: true})
	must(err)
	must(s.SetAssignees("acme/platform", 1, "mara", "alice", "bob"))
	must(s.SetDraft("acme/platform", 2, true))
	must(s.MergePull("acme/platform", 3, "mara"))
	if s.SetDraft("acme/platform", 1, true) == nil || s.MergePull("acme/platform", 3, "mara") == nil {
		t.Error("an issue became a draft, or a merged pull request was merged again")
	}
	const repo = "/repos/acme/platform"
	for _, c := range []struct{ path, want string }{
		{repo + "/issues/1", `"assignees":[{`},
		{repo + "/issues/1", `"login":"bob"`},
		{repo + "/issues/1/events", `"event":"assigned"`},
		{repo + "/pulls/2", `"draft":true`},
		{repo + "/pulls/3", `"merged":true`},
		{repo + "/pulls/3", `"state":"closed"`},
		{repo + "/pulls?state=all", `"merged_at":"`},
		{repo + "/issues/3", `"merged_at":"`},
		{repo + "/issues/3/events", `"event":"merged"`},
	} {
		code, _, body := do(t, "GET", srv.URL+c.path, tok, "")
		if code != 200 || !strings.Contains(body, c.want) {
			t.Errorf("GET %s: %d, want 200 with %s: %.400s", c.path, code, c.want, body)
		}
	}
}
