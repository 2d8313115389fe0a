package githubsim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"
)

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const repo = "acme/platform"

// startClocked starts an emulator on a fake clock with the test repository.
func startClocked(t *testing.T) (*Server, string, *fakeClock) {
	t.Helper()
	c := newClock()
	s, u := start(t, Options{Now: c.Now})
	return s, u, c
}

// client is a go-github client of the emulator at u.
func client(t *testing.T, u string) *gogithub.Client {
	t.Helper()
	c, err := gogithub.NewClient(gogithub.WithAuthToken(tok), gogithub.WithURLs(&u, &u))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Client().CloseIdleConnections)
	return c
}

func must[T any](v T, _ Delivery, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// world opens issue 1 (bug), PR 2 (fork head), issue 3 (closed), one
// minute apart, then comments on 1 and 2 and labels 2.
func world(t *testing.T, s *Server, c *fakeClock) {
	t.Helper()
	steps := []func() error{
		func() error {
			_, _, err := s.OpenIssue(repo, IssueSpec{Title: "one", Author: "alice", Labels: []string{"bug"}})
			return err
		},
		func() error {
			_, _, err := s.OpenIssue(repo, IssueSpec{Title: "two", Author: "bob", PullRequest: true, HeadRepo: "bob/platform"})
			return err
		},
		func() error { _, _, err := s.OpenIssue(repo, IssueSpec{Title: "three", Author: "carol"}); return err },
		func() error { _, err := s.SetIssueState(repo, 3, "carol", false); return err },
		func() error { _, _, err := s.AddComment(repo, 1, "bob", "first"); return err },
		func() error { _, _, err := s.AddComment(repo, 2, "renovate[bot]", "second"); return err },
		func() error { _, err := s.SetLabel(repo, 2, "alice", "ready", true); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		c.Advance(time.Minute)
	}
}

func TestListIssuesFilters(t *testing.T) {
	s, u, c := startClocked(t)
	world(t, s, c)
	gh := client(t, u)
	ctx := context.Background()
	t0 := newClock().Now()
	cases := []struct {
		name string
		opt  gogithub.IssueListByRepoOptions
		want []int
	}{
		{"default open, newest created first", gogithub.IssueListByRepoOptions{}, []int{2, 1}},
		{"all", gogithub.IssueListByRepoOptions{State: "all"}, []int{3, 2, 1}},
		{"closed", gogithub.IssueListByRepoOptions{State: "closed"}, []int{3}},
		{"by updated asc", gogithub.IssueListByRepoOptions{State: "all", Sort: "updated", Direction: "asc"}, []int{3, 1, 2}},
		{"by comments", gogithub.IssueListByRepoOptions{State: "all", Sort: "comments", Direction: "desc"}, []int{2, 1, 3}},
		{"since is inclusive", gogithub.IssueListByRepoOptions{State: "all", Since: t0.Add(5 * time.Minute)}, []int{2}},
		{"since before all", gogithub.IssueListByRepoOptions{State: "all", Since: t0.Add(4 * time.Minute)}, []int{2, 1}},
		{"labels", gogithub.IssueListByRepoOptions{Labels: []string{"READY"}}, []int{2}},
		{"labels all must match", gogithub.IssueListByRepoOptions{Labels: []string{"bug", "ready"}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := gh.Issues.ListByRepo(ctx, "acme", "platform", &tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var nums []int
			for _, is := range got {
				nums = append(nums, is.GetNumber())
			}
			if !slices.Equal(nums, tc.want) {
				t.Fatalf("numbers %v, want %v", nums, tc.want)
			}
		})
	}
}

func TestIssueObjects(t *testing.T) {
	s, u, c := startClocked(t)
	world(t, s, c)
	gh := client(t, u)
	ctx := context.Background()
	pr, _, err := gh.Issues.Get(ctx, "acme", "platform", 2)
	if err != nil {
		t.Fatal(err)
	}
	if !pr.IsPullRequest() || pr.GetPullRequestLinks().GetHTMLURL() != "https://github.com/acme/platform/pull/2" ||
		pr.GetHTMLURL() != "https://github.com/acme/platform/pull/2" || pr.GetComments() != 1 ||
		pr.GetUser().GetLogin() != "bob" || pr.GetUser().GetType() != "User" || pr.GetAuthorAssociation() != "NONE" {
		t.Fatalf("pull request as issue: %+v", pr)
	}
	// updated_at is the label change, the last step (minute 6).
	if want := newClock().Now().Add(6 * time.Minute); !pr.GetUpdatedAt().Time.Equal(want) {
		t.Fatalf("updated_at %v, want %v", pr.GetUpdatedAt(), want)
	}
	full, _, err := gh.PullRequests.Get(ctx, "acme", "platform", 2)
	if err != nil {
		t.Fatal(err)
	}
	if full.GetHead().GetRepo().GetFullName() != "bob/platform" || full.GetBase().GetRef() != "trunk" ||
		!regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(full.GetHead().GetSHA()) || len(full.Labels) != 1 {
		t.Fatalf("pull request: %+v", full)
	}
	closed, _, err := gh.Issues.Get(ctx, "acme", "platform", 3)
	if err != nil {
		t.Fatal(err)
	}
	if closed.GetState() != "closed" || closed.ClosedAt == nil || closed.IsPullRequest() {
		t.Fatalf("closed issue: %+v", closed)
	}
	if _, _, err := gh.Issues.Get(ctx, "acme", "platform", 9); err == nil {
		t.Fatal("issue 9 exists")
	}
	if _, _, err := gh.PullRequests.Get(ctx, "acme", "platform", 1); err == nil {
		t.Fatal("issue 1 served as a pull request")
	}
}

func TestCommentsEventsReviews(t *testing.T) {
	s, u, c := startClocked(t)
	world(t, s, c)
	rid, _, err := s.SubmitReview(repo, 2, "alice", "APPROVED", "ok")
	if err != nil {
		t.Fatal(err)
	}
	gh := client(t, u)
	ctx := context.Background()
	t0 := newClock().Now()

	all, _, err := gh.Issues.ListComments(ctx, "acme", "platform", 0, nil)
	if err != nil || len(all) != 2 || all[0].GetBody() != "first" || all[1].GetUser().GetType() != "Bot" {
		t.Fatalf("repo comments %v, %v", all, err)
	}
	desc, _, err := gh.Issues.ListComments(ctx, "acme", "platform", 0,
		&gogithub.IssueListCommentsOptions{Sort: gogithub.Ptr("updated"), Direction: gogithub.Ptr("desc")})
	if err != nil || len(desc) != 2 || desc[0].GetBody() != "second" {
		t.Fatalf("repo comments by updated desc %v, %v", desc, err)
	}
	since := t0.Add(5 * time.Minute)
	late, _, err := gh.Issues.ListComments(ctx, "acme", "platform", 0, &gogithub.IssueListCommentsOptions{Since: &since})
	if err != nil || len(late) != 1 || late[0].GetBody() != "second" {
		t.Fatalf("repo comments since %v: %v, %v", since, late, err)
	}
	one, _, err := gh.Issues.ListComments(ctx, "acme", "platform", 1, nil)
	if err != nil || len(one) != 1 || one[0].GetHTMLURL() != fmt.Sprintf("https://github.com/acme/platform/issues/1#issuecomment-%d", one[0].GetID()) {
		t.Fatalf("issue 1 comments %v, %v", one, err)
	}

	events, _, err := gh.Issues.ListRepositoryEvents(ctx, "acme", "platform", nil)
	if err != nil || len(events) != 2 || events[0].GetEvent() != "labeled" || events[0].GetLabel().GetName() != "ready" ||
		events[0].GetIssue().GetNumber() != 2 || events[1].GetEvent() != "closed" || events[0].GetActor().GetLogin() != "alice" {
		t.Fatalf("repo events %v, %v", events, err)
	}
	if !events[0].GetCreatedAt().Time.Equal(t0.Add(6 * time.Minute)) {
		t.Fatalf("labeled at %v", events[0].GetCreatedAt())
	}
	ie, _, err := gh.Issues.ListIssueEvents(ctx, "acme", "platform", 3, nil)
	if err != nil || len(ie) != 1 || ie[0].GetEvent() != "closed" {
		t.Fatalf("issue 3 events %v, %v", ie, err)
	}

	rvs, _, err := gh.PullRequests.ListReviews(ctx, "acme", "platform", 2, nil)
	if err != nil || len(rvs) != 1 || rvs[0].GetID() != rid || rvs[0].GetState() != "APPROVED" || rvs[0].GetBody() != "ok" ||
		!rvs[0].GetSubmittedAt().Time.Equal(t0.Add(7*time.Minute)) || rvs[0].GetHTMLURL() == "" {
		t.Fatalf("reviews %v, %v", rvs, err)
	}
	if _, _, err := gh.PullRequests.ListReviews(ctx, "acme", "platform", 1, nil); err == nil {
		t.Fatal("reviews of an issue")
	}
	pulls, _, err := gh.PullRequests.List(ctx, "acme", "platform", &gogithub.PullRequestListOptions{State: "all"})
	if err != nil || len(pulls) != 1 || pulls[0].GetNumber() != 2 {
		t.Fatalf("pulls %v, %v", pulls, err)
	}
	for _, ep := range []string{EndpointListRepoComments, EndpointListIssueComments, EndpointListRepoEvents,
		EndpointListIssueEvents, EndpointListReviews, EndpointListPulls} {
		if s.Calls(ep) == 0 {
			t.Errorf("no calls counted for %s", ep)
		}
	}
}

func TestMutationErrors(t *testing.T) {
	s, u, c := startClocked(t)
	world(t, s, c)
	c.Advance(time.Hour)
	cases := []struct {
		name string
		err  error
	}{
		{"no repo", func() error { _, _, err := s.OpenIssue("acme/none", IssueSpec{}); return err }()},
		{"no issue", func() error { _, _, err := s.AddComment(repo, 42, "a", "b"); return err }()},
		{"label twice", func() error { _, err := s.SetLabel(repo, 1, "a", "BUG", true); return err }()},
		{"remove absent label", func() error { _, err := s.SetLabel(repo, 1, "a", "nope", false); return err }()},
		{"review on issue", func() error { _, _, err := s.SubmitReview(repo, 1, "a", "APPROVED", ""); return err }()},
		{"bad review state", func() error { _, _, err := s.SubmitReview(repo, 2, "a", "LGTM", ""); return err }()},
		{"close twice", func() error { _, err := s.SetIssueState(repo, 3, "a", false); return err }()},
	}
	for _, tc := range cases {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	is, _, err := client(t, u).Issues.Get(context.Background(), "acme", "platform", 1)
	if err != nil || !is.GetUpdatedAt().Time.Equal(newClock().Now().Add(4*time.Minute)) || len(is.Labels) != 1 {
		t.Fatalf("failed changes touched issue 1: %v, %v", is, err)
	}
}

// TestNumbersShared checks that issues and pull requests (also those added
// by AddPullRequest) share one number sequence.
func TestNumbersShared(t *testing.T) {
	s, u, _ := startClocked(t)
	if err := s.AddPullRequest(repo, PullRequest{Number: 7, Author: "dev", HeadRepo: "", HeadRef: "x"}); err != nil {
		t.Fatal(err)
	}
	n := must(s.OpenIssue(repo, IssueSpec{Title: "after", Author: "a"}))
	if n != 8 {
		t.Fatalf("number after PR 7 is %d", n)
	}
	code, _, body := do(t, http.MethodGet, u+"repos/acme/platform/pulls/7", tok, "")
	var pr map[string]any
	if code != 200 || json.Unmarshal([]byte(body), &pr) != nil || pr["head"].(map[string]any)["repo"] != nil {
		t.Fatalf("deleted fork head: %d %s", code, body)
	}
}
