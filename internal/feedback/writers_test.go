package feedback

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// noWait is a retry policy for tests: one retry, no real wait.
var noWait = &github.Policy{MaxRetries: 1, Idempotent: true, Sleep: func(context.Context, time.Duration) error { return nil }}

func TestGitHubReactOnce(t *testing.T) {
	s := githubsim.New(githubsim.Options{Token: "tok", Login: "fullsend[bot]", Repos: []githubsim.Repo{{FullName: "acme/app"}}})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, _, _ := s.OpenIssue("acme/app", githubsim.IssueSpec{Title: "t", Author: "alice"})
	id, _, _ := s.AddComment("acme/app", n, "alice", "/fs-triage")
	c, err := github.NewClient(base, "tok", github.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := &GitHub{Client: c, Policy: noWait}
	for i, want := range []bool{false, true, true} {
		existing, err := w.React(context.Background(), Target{System: "github", Repo: "acme/app", Number: int64(n), Comment: id}, Eyes)
		if err != nil || existing != want {
			t.Errorf("react %d: existing %v, err %v; want %v", i, existing, err, want)
		}
	}
	if rs := s.CommentReactions("acme/app", id); len(rs) != 1 || rs[0].Content != Eyes || rs[0].User != "fullsend[bot]" {
		t.Errorf("reactions %+v, want one eyes by the app", rs)
	}
	if _, err := w.React(context.Background(), Target{System: "github", Repo: "acme/app", Number: int64(n)}, Confused); err != nil {
		t.Fatal(err)
	}
	if rs := s.IssueReactions("acme/app", n); len(rs) != 1 || rs[0].Content != Confused {
		t.Errorf("issue reactions %+v", rs)
	}
	s.Inject(githubsim.Fault{Endpoint: githubsim.EndpointAddCommentReaction, Status: 500, Times: 5})
	if _, err := w.React(context.Background(), Target{System: "github", Repo: "acme/app", Number: int64(n), Comment: id}, "rocket"); err == nil {
		t.Error("a 500 answered: want an error")
	}
	if calls := s.Calls(githubsim.EndpointAddCommentReaction); calls != 5 {
		t.Errorf("%d reaction calls, want 3 + 2 (one retry within the budget)", calls)
	}
}

func TestGitLabAwardOnce(t *testing.T) {
	s := gitlabsim.New(gitlabsim.Options{Projects: []string{"g/p"}})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ada, bot := s.AddUser("ada", false), s.AddUser("project_1_bot", true)
	s.SetTokenUser(bot.ID)
	mr, _, err := s.CreateMergeRequest("g/p", gitlabsim.MergeRequestSpec{SourceBranch: "f", TargetBranch: "main", Title: "f", AuthorID: ada.ID})
	if err != nil {
		t.Fatal(err)
	}
	note, _, _ := s.AddNote("g/p", gitlabsim.NoteableMergeRequest, mr.IID, ada.ID, "/fs-review")
	c, err := gitlab.NewClient(gitlab.Options{APIURL: base, Token: s.Token()})
	if err != nil {
		t.Fatal(err)
	}
	w := &GitLab{Client: c}
	tg := Target{System: "gitlab", Repo: "g/p", Number: mr.IID, MergeRequest: true, Comment: note.ID}
	for i, want := range []bool{false, true, true} {
		existing, err := w.React(context.Background(), tg, Eyes)
		if err != nil || existing != want {
			t.Errorf("award %d: existing %v, err %v; want %v", i, existing, err, want)
		}
	}
	if as := s.Awards("Note", note.ID); len(as) != 1 || as[0].Name != Eyes || as[0].UserID != bot.ID {
		t.Errorf("awards %+v, want one eyes by the token's user", as)
	}
	tg.Comment = 999
	if _, err := w.React(context.Background(), tg, Eyes); err == nil {
		t.Error("a missing note: want an error")
	}
}

func TestJiraCommentOnce(t *testing.T) {
	s := jirasim.New(jirasim.Options{})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.AddProject("PROJ", "")
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "s"})
	c, err := jira.New(jira.Options{BaseURL: base, Email: "e@example.com", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	w := &Jira{Client: c}
	marker := Marker(KindUnhonoured, "comment/1")
	for i, want := range []bool{false, true} {
		existing, err := w.Comment(context.Background(), Target{System: "jira", Key: key}, "not honoured\n"+marker, marker)
		if err != nil || existing != want {
			t.Errorf("comment %d: existing %v, err %v; want %v", i, existing, err, want)
		}
	}
	cs, err := c.CommentsSince(context.Background(), key, time.Time{})
	if err != nil || len(cs) != 1 || !strings.Contains(cs[0].Text, marker) || !IsOwn(cs[0].Text) {
		t.Fatalf("comments %+v, %v: want one marked", cs, err)
	}
	if _, err := w.React(context.Background(), Target{System: "jira", Key: key}, Eyes); err != ErrNoReactions {
		t.Errorf("react on jira: %v", err)
	}
}

// TestForgeCommentOnce: a marked comment is posted once on a GitHub issue
// and on a GitLab merge request; asked again, the marker is found.
func TestForgeCommentOnce(t *testing.T) {
	gh := githubsim.New(githubsim.Options{Token: "tok", Login: "fullsend[bot]", Repos: []githubsim.Repo{{FullName: "acme/app"}}})
	ghBase, err := gh.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer gh.Close()
	n, _, _ := gh.OpenIssue("acme/app", githubsim.IssueSpec{Title: "t", Author: "alice"})
	ghc, err := github.NewClient(ghBase, "tok", github.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gl := gitlabsim.New(gitlabsim.Options{Projects: []string{"g/p"}})
	glBase, err := gl.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer gl.Close()
	ada, bot := gl.AddUser("ada", false), gl.AddUser("project_1_bot", true)
	gl.SetTokenUser(bot.ID)
	mr, _, err := gl.CreateMergeRequest("g/p", gitlabsim.MergeRequestSpec{SourceBranch: "f", TargetBranch: "main", Title: "f", AuthorID: ada.ID})
	if err != nil {
		t.Fatal(err)
	}
	glc, err := gitlab.NewClient(gitlab.Options{APIURL: glBase, Token: gl.Token()})
	if err != nil {
		t.Fatal(err)
	}
	marker := Marker(KindUnhonoured, "comment/5")
	for _, tc := range []struct {
		name   string
		w      Writer
		t      Target
		writes func() int
	}{
		{"github", &GitHub{Client: ghc, Policy: noWait}, Target{System: "github", Repo: "acme/app", Number: int64(n)},
			func() int { return gh.Calls(githubsim.EndpointAddComment) }},
		{"gitlab", &GitLab{Client: glc}, Target{System: "gitlab", Repo: "g/p", Number: mr.IID, MergeRequest: true},
			func() int { return gl.Calls("create_merge_request_note") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, want := range []bool{false, true} {
				existing, err := tc.w.Comment(context.Background(), tc.t, "set aside\n"+marker, marker)
				if err != nil || existing != want {
					t.Errorf("comment %d: existing %v, err %v; want %v", i, existing, err, want)
				}
			}
			if got := tc.writes(); got != 1 {
				t.Errorf("%d comments posted, want 1", got)
			}
		})
	}
}
