package feedback

import (
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
)

func TestTargetOf(t *testing.T) {
	pr := ghComment("/fs-triage", "901")
	pr.Entity.LinkedChangeProposal = &event.LinkedChangeProposal{ID: 7, URL: "https://github.com/acme/app/pull/7"}
	review := ghComment("x", "")
	review.Entity = event.Entity{Kind: event.KindChangeProposal, ID: 8, URL: "https://ghe.example.com/acme/app/pull/8"}
	review.Transition = event.Transition{Kind: event.ReviewSubmitted, Review: &event.Review{State: "approved"}}
	noURL := ghComment("/fs-triage", "901")
	noURL.Entity.URL = "not a url"
	glIssue := ghComment("/fs-triage", "12")
	glIssue.Source.System, glIssue.Entity.URL = event.SystemGitLab, "https://gitlab.example.com/group/sub/proj/-/issues/7"
	manual := ghComment("/fs-triage", "1")
	manual.Source.System = event.SystemManual
	cases := []struct {
		name string
		ev   *event.Event
		want string
		ok   bool
	}{
		{"a github issue comment", ghComment("/fs-triage", "901"), "github:acme/app#7/comment/901", true},
		{"a github pull request comment", pr, "github:acme/app#7/comment/901", true},
		{"a review: the pull request", review, "github:acme/app#8", true},
		{"no web address: the event's repo", noURL, "github:acme/platform#7/comment/901", true},
		{"a gitlab issue note", glIssue, "gitlab:group/sub/proj#7/comment/12", true},
		{"jira", jiraComment("10001"), "jira:PROJ-1/comment/10001", true},
		{"manual", manual, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := TargetOf(tc.ev)
			if ok != tc.ok || ok && got.String() != tc.want {
				t.Errorf("TargetOf = %s, %v; want %s, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestIsOwn(t *testing.T) {
	for text, want := range map[string]bool{
		"received\n[fullsend:acknowledge comment/1]": true,
		"  [fullsend:unhonoured x]":                  true,
		"/fs-triage [fullsend:acknowledge x]":        false,
		"/fs-triage":                                 false,
	} {
		if IsOwn(text) != want {
			t.Errorf("IsOwn(%q) = %v", text, !want)
		}
	}
	if !IsOwn(Marker(KindAcknowledge, "comment/5")) {
		t.Error("a marker is not recognised")
	}
}

// FuzzTargetOf: any web address and comment id of an event (outside
// input) gives a target or none, never a panic, and the repository it
// names is never empty for a forge target.
func FuzzTargetOf(f *testing.F) {
	f.Add("https://github.com/acme/app/issues/7", "901", "github")
	f.Add("https://gitlab.com/g/p/-/merge_requests/3", "x", "gitlab")
	f.Add("::/%zz", "-1", "github")
	f.Add("https://h/-/issues/1", "99999999999999999999999", "gitlab")
	f.Fuzz(func(t *testing.T, url, id, system string) {
		ev := ghComment("/fs-triage", id)
		ev.Entity.URL, ev.Source.System = url, system
		tg, ok := TargetOf(ev)
		if ok && (system == event.SystemGitHub || system == event.SystemGitLab) && tg.Repo == "" {
			t.Errorf("empty repository for %q", url)
		}
		_ = IsOwn(url + "\n" + id)
	})
}
