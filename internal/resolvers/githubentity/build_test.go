package githubentity

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

func at(min int) *gogithub.Timestamp {
	return &gogithub.Timestamp{Time: time.Date(2026, 11, 4, 10, min, 0, 0, time.UTC)}
}

func user(login string) *gogithub.User { return &gogithub.User{Login: gogithub.Ptr(login)} }

func testIssue() *gogithub.Issue {
	return &gogithub.Issue{Number: gogithub.Ptr(7), HTMLURL: gogithub.Ptr("https://github.com/acme/platform/issues/7"),
		State: gogithub.Ptr("open"), Title: gogithub.Ptr("t"), Body: gogithub.Ptr("body"), User: user("alice"), CreatedAt: at(0)}
}

// A cut listing was enumerated only back to its oldest kept item: every
// element not newer than it is dropped, whatever listing it came from.
func TestBuildHorizon(t *testing.T) {
	comment := func(id int64, min int) *gogithub.IssueComment {
		return &gogithub.IssueComment{ID: gogithub.Ptr(id), Body: gogithub.Ptr("c"), User: user("bob"), CreatedAt: at(min)}
	}
	labeled := func(id int64, min int) *gogithub.IssueEvent {
		return &gogithub.IssueEvent{ID: gogithub.Ptr(id), Event: gogithub.Ptr("labeled"), Actor: user("mara"),
			Label: &gogithub.Label{Name: "x"}, CreatedAt: at(min)}
	}
	assigned := &gogithub.IssueEvent{ID: gogithub.Ptr(int64(30)), Event: gogithub.Ptr("assigned"), Actor: user("mara"), CreatedAt: at(20)}
	comments := []*gogithub.IssueComment{comment(1, 10), comment(2, 30)}
	tests := []struct {
		name   string
		events []*gogithub.IssueEvent
		cut    bool
		want   []string
	}{
		{"complete", []*gogithub.IssueEvent{labeled(20, 5), assigned, labeled(21, 40)}, false,
			[]string{"label 21", "comment 2", "comment 1", "label 20", "body 7"}},
		// the oldest event kept is the assignment at minute 20
		{"events cut", []*gogithub.IssueEvent{assigned, labeled(21, 40)}, true, []string{"label 21", "comment 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := parts{issue: testIssue(), comments: comments, events: tt.events, eventsCut: tt.cut}
			e, err := build(entity.Ref{System: "github", Repo: "acme/platform", Kind: entity.KindWorkItem, ID: 7}, "acme/platform", q, nil)
			must(t, err)
			var got []string
			for _, el := range e.Activity {
				got = append(got, el.Kind+" "+el.ID)
			}
			if !equal(got, tt.want) || e.ActivityTruncated != tt.cut {
				t.Errorf("activity %v truncated %v, want %v truncated %v", got, e.ActivityTruncated, tt.want, tt.cut)
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// What the tool's own accounts do (the token's user, the configured bot
// accounts) is no new version; anyone else's comment is.
func TestResolveVersionOwnAccounts(t *testing.T) {
	f := newFixture(t)
	n := f.openIssue(t)
	r := f.resolver(t)
	ref := entity.Ref{System: "github", Repo: repo, Kind: entity.KindWorkItem, ID: int64(n)}
	version := func() string {
		t.Helper()
		e, err := r.Resolve(context.Background(), ref)
		must(t, err)
		return e.Version
	}
	v0 := version()
	f.step()
	_, _, err := f.sim.AddComment(repo, n, "fullsend-bot", "Done.")
	must(t, err)
	f.step()
	_, err = f.sim.SetLabel(repo, n, "renovate[bot]", "triaged", true)
	must(t, err)
	if v1 := version(); v1 != v0 {
		t.Errorf("the tool's own comment and label gave a new version: %s, then %s", v0, v1)
	}
	f.step()
	_, _, err = f.sim.AddComment(repo, n, "mara", "/fs-triage again")
	must(t, err)
	if v2 := version(); v2 == v0 {
		t.Errorf("a maintainer's comment kept the version %s", v0)
	}
	if got := f.sim.Calls(githubsim.EndpointUser); got != 1 {
		t.Errorf("the token's own account was read %d times, want once per resolver", got)
	}
}

// FuzzBuild: whatever GitHub answers, the mapping either refuses it or
// yields an entity that, once its actors have roles, is valid.
func FuzzBuild(f *testing.F) {
	seed, _ := json.Marshal(map[string]any{"issue": testIssue(), "comments": []any{map[string]any{"id": 1, "body": "/fs-x y\nz",
		"user": map[string]any{"login": "bob"}, "created_at": "2026-11-04T10:01:00Z"}},
		"events": []any{map[string]any{"id": 2, "event": "labeled", "label": map[string]any{"name": "l"},
			"actor": map[string]any{"login": "x[bot]"}, "created_at": "2026-11-04T10:02:00Z"}}})
	f.Add(seed, false, false)
	pull, _ := json.Marshal(map[string]any{"pull": map[string]any{"number": 7, "html_url": "https://github.com/a/b/pull/7",
		"state": "closed", "merged_at": "2026-11-04T11:00:00Z", "user": map[string]any{"login": "alice"}, "created_at": "2026-11-04T10:00:00Z",
		"head": map[string]any{"ref": "h", "sha": "0123456789abcdef0123456789abcdef01234567", "repo": map[string]any{"full_name": "f/b"}},
		"base": map[string]any{"ref": "main"}, "body": "desc"},
		"reviews": []any{map[string]any{"id": 3, "state": "APPROVED", "body": "ok", "user": map[string]any{"login": "mara"},
			"submitted_at": "2026-11-04T10:30:00Z"}}})
	f.Add(pull, true, true)
	f.Add([]byte(`{"issue":{"number":7,"html_url":"https://github.com/a/b/issues/7","state":"open","user":{"login":"a"},`+
		`"created_at":"2026-11-04T10:00:00Z"},"comments":[{"id":1,"body":"x","user":{"login":"b"},"created_at":"9999-12-31T23:00:00-05:00"}]}`), false, false)
	f.Fuzz(func(t *testing.T, data []byte, cut, asPull bool) {
		var in struct {
			Issue    *gogithub.Issue               `json:"issue"`
			Pull     *gogithub.PullRequest         `json:"pull"`
			Comments []*gogithub.IssueComment      `json:"comments"`
			Events   []*gogithub.IssueEvent        `json:"events"`
			Reviews  []*gogithub.PullRequestReview `json:"reviews"`
		}
		if json.Unmarshal(data, &in) != nil {
			return
		}
		kind := entity.KindWorkItem
		if asPull {
			kind = entity.KindChangeProposal
		}
		p := parts{issue: in.Issue, pull: in.Pull, comments: in.Comments, events: in.Events, reviews: in.Reviews,
			commentsCut: cut, eventsCut: cut}
		e, err := build(entity.Ref{System: "github", Repo: "acme/platform", Kind: kind, ID: 7}, "acme/platform", p, nil)
		if err != nil {
			return
		}
		for i := range e.Activity {
			if e.Activity[i].Actor.Role == "" {
				e.Activity[i].Actor.Role = event.RoleRead
			}
		}
		e.Version = entity.ComputeVersion(e, nil)
		if err := e.Validate(); err != nil {
			t.Fatalf("built an invalid entity: %v\n%s", err, data)
		}
	})
}
