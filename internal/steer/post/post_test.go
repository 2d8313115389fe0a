package post

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		url  string
		want Target
		bad  bool
	}{
		{url: "https://github.com/acme/platform/issues/7", want: Target{System: "github", Site: "https://github.com", Repo: "acme/platform", Number: 7}},
		{url: "https://github.com/acme/platform/pull/12/", want: Target{System: "github", Site: "https://github.com", Repo: "acme/platform", Number: 12}},
		{url: "https://gitlab.example/g/sub/p/-/merge_requests/3", want: Target{System: "gitlab", Site: "https://gitlab.example", Repo: "g/sub/p", Number: 3, MergeRequest: true}},
		{url: "https://gitlab.example/g/p/-/issues/9", want: Target{System: "gitlab", Site: "https://gitlab.example", Repo: "g/p", Number: 9}},
		{url: "https://acme.atlassian.net/browse/PROJ-123", want: Target{System: "jira", Site: "https://acme.atlassian.net", Key: "PROJ-123"}},
		{url: "https://github.com/acme/platform/issues/0", bad: true},
		{url: "https://github.com/acme/platform/issues/+7", bad: true},
		{url: "https://github.com/acme/platform", bad: true},
		{url: "ftp://github.com/acme/platform/issues/7", bad: true},
		{url: "https://acme.atlassian.net/browse/not a key", bad: true},
		{url: "://", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseURL(tt.url)
		if tt.bad {
			if !errors.Is(err, ErrURL) {
				t.Errorf("ParseURL(%q) = %+v, %v: want ErrURL", tt.url, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", tt.url, got, err, tt.want)
		}
	}
}

func FuzzParseURL(f *testing.F) {
	f.Add("https://github.com/a/b/issues/1")
	f.Add("https://g.example/x/-/merge_requests/2")
	f.Fuzz(func(t *testing.T, s string) {
		if tg, err := ParseURL(s); err == nil && tg.System == "" {
			t.Fatalf("ParseURL(%q) = %+v without a system", s, tg)
		}
	})
}

// Each platform gets the caller's comment, posted with the caller's token.
func TestPostOnEachPlatform(t *testing.T) {
	ctx := context.Background()
	gs := githubsim.New(githubsim.Options{Token: "ghp_caller", Login: "alice", Repos: []githubsim.Repo{{FullName: "acme/platform", DefaultBranch: "main"}}})
	gbase, err := gs.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close()
	n, _, _ := gs.OpenIssue("acme/platform", githubsim.IssueSpec{Title: "x", Author: "bob"})
	tg, _ := ParseURL("https://github.com/acme/platform/issues/" + itoa(n))
	if _, err := Post(ctx, tg, "also the retries", env("GITHUB_TOKEN", "ghp_caller", "GITHUB_API_URL", gbase)); err != nil {
		t.Fatal(err)
	}
	if cs := gs.Comments("acme/platform", n); len(cs) != 1 || cs[0].Author != "alice" || cs[0].Body != "also the retries" {
		t.Fatalf("GitHub comments %+v", cs)
	}
	if _, err := Post(ctx, tg, "x", env()); !errors.Is(err, ErrNoToken) {
		t.Fatalf("no token: %v", err)
	}

	ls := gitlabsim.New(gitlabsim.Options{Projects: []string{"acme/platform"}})
	lbase, err := ls.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	u := ls.AddUser("alice", false)
	ls.SetTokenUser(u.ID)
	is, _, _ := ls.CreateIssue("acme/platform", u.ID, "x", "", nil)
	tg, _ = ParseURL("https://gitlab.example/acme/platform/-/issues/" + itoa(int(is.IID)))
	if _, err := Post(ctx, tg, "also the retries", env("GITLAB_TOKEN", ls.Token(), "GITLAB_API_URL", lbase)); err != nil {
		t.Fatal(err)
	}
	if ns := ls.Notes("acme/platform", gitlabsim.NoteableIssue, is.IID); len(ns) != 1 || ns[0].AuthorID != u.ID || ns[0].Body != "also the retries" {
		t.Fatalf("GitLab notes %+v", ns)
	}

	js := jirasim.New(jirasim.Options{RequiredToken: "jira-caller"})
	jbase, err := js.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	js.AddProject("PROJ", "Platform")
	key := js.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "x"})
	tg, _ = ParseURL("https://acme.atlassian.net/browse/" + key)
	if _, err := Post(ctx, tg, "also the retries", env("JIRA_TOKEN", "jira-caller", "JIRA_BASE_URL", jbase)); err != nil {
		t.Fatal(err)
	}
	if cs := js.Comments(key); len(cs) != 1 {
		t.Fatalf("Jira comments %+v", cs)
	}
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func itoa(n int) string { return strconv.Itoa(n) }
