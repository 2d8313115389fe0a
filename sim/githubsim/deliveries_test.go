package githubsim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"
)

// field walks a decoded JSON payload along a dotted path ("issue.user.login",
// "issue.labels.0.name").
func field(m any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch v := m.(type) {
		case map[string]any:
			m = v[k]
		case []any:
			i := int(k[0] - '0')
			if i >= len(v) {
				return nil
			}
			m = v[i]
		default:
			return nil
		}
	}
	return m
}

// TestDeliveryShapes checks each delivery's event name and the payload
// fields the gha-event input driver reads, with plain maps, and that
// go-github decodes it as the matching event type.
func TestDeliveryShapes(t *testing.T) {
	s, _, c := startClocked(t)
	if err := s.SetPermission(repo, "maint", "maintain"); err != nil {
		t.Fatal(err)
	}
	var ds []Delivery
	add := func(d Delivery, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
		c.Advance(time.Minute)
	}
	add2 := func(_ any, d Delivery, err error) { t.Helper(); add(d, err) }
	add2(s.OpenIssue(repo, IssueSpec{Title: "t", Body: "b", Author: "maint", Labels: []string{"bug"}}))         // 0
	add2(s.OpenIssue(repo, IssueSpec{Title: "p", Author: "dependabot[bot]", PullRequest: true, HeadRepo: "-"})) // 1
	add2(s.OpenIssue(repo, IssueSpec{Title: "f", Author: "eve", PullRequest: true, HeadRepo: "eve/platform"}))  // 2
	add2(s.AddComment(repo, 1, "eve", "hello"))                                                                 // 3
	add2(s.AddComment(repo, 2, "maint", "on a PR"))                                                             // 4
	add(s.SetLabel(repo, 1, "maint", "ready", true))                                                            // 5
	add(s.SetLabel(repo, 3, "maint", "ready", true))                                                            // 6
	add2(s.SubmitReview(repo, 3, "maint", "CHANGES_REQUESTED", "fix it"))                                       // 7
	add(s.SetLabel(repo, 1, "maint", "bug", false))                                                             // 8
	add(s.SetIssueState(repo, 1, "acme", false))                                                                // 9

	base := "https://github.com/acme/platform/"
	cases := []struct {
		i     int
		event string
		want  map[string]any
	}{
		{0, "issues", map[string]any{"action": "opened", "issue.number": 1.0, "issue.html_url": base + "issues/1",
			"issue.labels.0.name": "bug", "issue.user.login": "maint", "issue.author_association": "COLLABORATOR",
			"sender.login": "maint", "sender.type": "User", "repository.full_name": repo, "issue.pull_request": nil}},
		{1, "pull_request", map[string]any{"action": "opened", "number": 2.0, "pull_request.number": 2.0,
			"pull_request.html_url": base + "pull/2", "pull_request.head.repo": nil, "pull_request.base.repo.full_name": repo,
			"pull_request.base.ref": "trunk", "pull_request.user.login": "dependabot[bot]", "sender.type": "Bot"}},
		{2, "pull_request", map[string]any{"pull_request.head.repo.full_name": "eve/platform", "pull_request.head.ref": "change-3"}},
		{3, "issue_comment", map[string]any{"action": "created", "issue.number": 1.0, "comment.body": "hello",
			"comment.user.login": "eve", "sender.login": "eve", "issue.comments": 1.0}},
		{4, "issue_comment", map[string]any{"issue.number": 2.0, "issue.pull_request.html_url": base + "pull/2",
			"issue.html_url": base + "pull/2", "comment.author_association": "COLLABORATOR"}},
		{5, "issues", map[string]any{"action": "labeled", "label.name": "ready", "issue.labels.1.name": "ready", "sender.login": "maint"}},
		{6, "pull_request", map[string]any{"action": "labeled", "label.name": "ready", "pull_request.labels.0.name": "ready"}},
		{7, "pull_request_review", map[string]any{"action": "submitted", "review.state": "CHANGES_REQUESTED",
			"review.user.login": "maint", "review.body": "fix it", "pull_request.number": 3.0, "sender.login": "maint"}},
		{8, "issues", map[string]any{"action": "unlabeled", "label.name": "bug", "issue.labels.0.name": "ready"}},
		{9, "issues", map[string]any{"action": "closed", "issue.state": "closed", "sender.login": "acme",
			"issue.closed_at": "2026-03-01T10:09:00Z"}},
	}
	for _, tc := range cases {
		d := ds[tc.i]
		if d.Event != tc.event {
			t.Errorf("delivery %d: event %q, want %q", tc.i, d.Event, tc.event)
		}
		var m map[string]any
		if err := json.Unmarshal(d.Payload, &m); err != nil {
			t.Fatalf("delivery %d: %v", tc.i, err)
		}
		for path, want := range tc.want {
			if got := field(m, path); got != want {
				t.Errorf("delivery %d: %s = %v, want %v", tc.i, path, got, want)
			}
		}
		ev, err := gogithub.ParseWebHook(d.Event, d.Payload)
		if err != nil {
			t.Fatalf("delivery %d: go-github: %v", tc.i, err)
		}
		ok := false
		switch e := ev.(type) {
		case *gogithub.IssuesEvent:
			ok = e.GetIssue().GetNumber() > 0 && e.GetRepo().GetFullName() == repo
		case *gogithub.PullRequestEvent:
			ok = e.GetPullRequest().GetHead().GetSHA() != "" && e.GetPullRequest().GetCreatedAt().Year() == 2026
		case *gogithub.IssueCommentEvent:
			ok = e.GetComment().GetID() > 0
		case *gogithub.PullRequestReviewEvent:
			ok = e.GetReview().GetID() > 0
		}
		if !ok {
			t.Errorf("delivery %d: go-github decoded %T without the expected fields", tc.i, ev)
		}
	}
}

// TestDeliveryTimes checks that a change's own time equals the issue's new
// updated_at: a label event's created_at, a comment's created_at and
// updated_at, a review's submitted_at.
func TestDeliveryTimes(t *testing.T) {
	s, u, c := startClocked(t)
	n := must(s.OpenIssue(repo, IssueSpec{Author: "a", PullRequest: true}))
	c.Advance(90 * time.Second)
	_, cd, err := s.AddComment(repo, n, "b", "x")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute + 300*time.Millisecond) // sub-second clocks are cut to seconds
	ld, err := s.SetLabel(repo, n, "b", "l", true)
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute)
	_, rd, err := s.SubmitReview(repo, n, "b", "APPROVED", "")
	if err != nil {
		t.Fatal(err)
	}
	var cm, lm, rm map[string]any
	for _, p := range []struct {
		d Delivery
		m *map[string]any
	}{{cd, &cm}, {ld, &lm}, {rd, &rm}} {
		if err := json.Unmarshal(p.d.Payload, p.m); err != nil {
			t.Fatal(err)
		}
	}
	if field(cm, "comment.created_at") != field(cm, "issue.updated_at") || field(cm, "comment.updated_at") != "2026-03-01T10:01:30Z" {
		t.Errorf("comment %v / %v, issue %v", field(cm, "comment.created_at"), field(cm, "comment.updated_at"), field(cm, "issue.updated_at"))
	}
	if field(rm, "review.submitted_at") != field(rm, "pull_request.updated_at") || field(rm, "review.submitted_at") != "2026-03-01T10:03:30Z" {
		t.Errorf("review %v, pull request %v", field(rm, "review.submitted_at"), field(rm, "pull_request.updated_at"))
	}
	code, _, body := get(t, u+"repos/acme/platform/issues/events", nil)
	var evs []map[string]any
	if err := json.Unmarshal([]byte(body), &evs); code != 200 || err != nil || len(evs) != 1 {
		t.Fatalf("events: %d %s", code, body)
	}
	if evs[0]["created_at"] != field(lm, "pull_request.updated_at") || evs[0]["created_at"] != "2026-03-01T10:02:30Z" {
		t.Errorf("label event at %v, pull request updated %v", evs[0]["created_at"], field(lm, "pull_request.updated_at"))
	}
}
