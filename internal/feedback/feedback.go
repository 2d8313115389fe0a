// Package feedback tells the people on a work item what became of their
// request, on the item itself (docs/feedback.md): an acknowledgment of a
// run started by a command (an `eyes` reaction on the GitHub comment, an
// `eyes` award emoji on the GitLab note, optionally a short reply on
// Jira), a neutral reaction to a command that was denied, and one comment
// when a change was given up on. It owns that vocabulary and those writes.
//
// Feedback is best-effort: it runs after the dispatch succeeded, bounded
// by a short timeout and the platform clients' small retry budget; a
// failure is logged and counted (fullsend_feedback_total), never returned
// to the dispatcher. It is written exactly once per change however often
// the change is seen: GitHub answers 200 for a reaction the account
// already made, GitLab 404 "has already been taken" for an award it
// already gave, and a Jira reply carries a marker that is looked for
// before posting and that pollers recognise as the tool's own.
package feedback

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// The reactions feedback writes.
const (
	Eyes     = "eyes"     // acknowledged: a run started
	Confused = "confused" // a command that was not honoured (report.denied: reaction)
)

// Kinds of feedback: the kind label of fullsend_feedback_total.
const (
	KindAcknowledge = "acknowledge"
	KindRefuse      = "refuse"
	KindUnhonoured  = "unhonoured"
)

// Results: the result label of fullsend_feedback_total.
const (
	ResultCreated  = "created"  // written now
	ResultExisting = "existing" // already there: the platform's idempotent answer, or the marker found
	ResultFailed   = "failed"   // not written (logged)
)

// Target is where feedback is written: an element (a comment or note) or
// the item itself.
type Target struct {
	System string // event.SystemGitHub, SystemGitLab or SystemJira
	// Repo is the GitHub repository (owner/name) or the GitLab project
	// path the item lives in; "" on Jira.
	Repo string
	// Number is the issue, pull request or merge request number (GitLab
	// iid); MergeRequest says a GitLab number is a merge request's.
	Number       int64
	MergeRequest bool
	Key          string // the Jira issue key
	// Comment is the comment or note the feedback is about; 0 means the
	// item itself (a label or review event, a change given up on).
	Comment int64
	// Since bounds the look for an existing marked comment (Jira): the
	// time of the change the comment is about.
	Since time.Time
}

func (t Target) String() string {
	s := t.System + ":"
	switch {
	case t.Key != "":
		s += t.Key
	case t.MergeRequest:
		s += fmt.Sprintf("%s!%d", t.Repo, t.Number)
	default:
		s += fmt.Sprintf("%s#%d", t.Repo, t.Number)
	}
	if t.Comment != 0 {
		s += fmt.Sprintf("/comment/%d", t.Comment)
	}
	return s
}

// Item is t without its element: the issue, pull or merge request.
func (t Target) Item() Target {
	t.Comment = 0
	return t
}

// Writer writes feedback on one platform as the tool's own account.
type Writer interface {
	// React adds the reaction content to t. existing reports that the
	// platform answered that the account had already reacted so.
	React(ctx context.Context, t Target, content string) (existing bool, err error)
	// Comment posts text on t's item, unless a comment made at or after
	// t.Since already carries marker (existing).
	Comment(ctx context.Context, t Target, text, marker string) (existing bool, err error)
}

// markerPrefix starts every marker; pollers treat a comment carrying one
// as the tool's own (IsOwn).
const markerPrefix = "[fullsend:"

// Marker is the line a comment of kind about change carries, e.g.
// "[fullsend:unhonoured comment/10042]".
func Marker(kind, change string) string { return markerPrefix + kind + " " + change + "]" }

// IsOwn reports whether comment text carries a marker: the tool wrote
// it, so it is no request (pollers map it as a bot's).
func IsOwn(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), markerPrefix) {
			return true
		}
	}
	return false
}

// Acknowledged reports whether a run started by ev is acknowledged when
// its harness has report.acknowledge: it was started by a command (a
// comment or note whose first word is a command), a review, or a label
// added.
func Acknowledged(ev *event.Event) bool {
	t := ev.Transition
	switch t.Kind {
	case event.CommentAdded:
		return t.Comment != nil && t.Comment.Command != "" && t.Comment.ID != ""
	case event.ReviewSubmitted:
		return t.Review != nil && t.Review.State != "dismissed"
	case event.LabelChanged:
		return t.Label != nil && t.Label.Action == "added"
	}
	return false
}

// TargetOf is where feedback about ev goes: its comment or note when it
// has one, else its item. The repository or project is read from the
// entity's web address (the item's own, which may differ from the
// target repository), else ev.Repo. ok is false for systems without an
// item to write on (manual, schedule).
func TargetOf(ev *event.Event) (Target, bool) {
	t := Target{System: ev.Source.System, Number: ev.Entity.ID}
	switch t.System {
	case event.SystemJira:
		t.Key, t.Number = ev.Entity.Key, 0
		if t.Key == "" {
			return Target{}, false
		}
	case event.SystemGitHub:
		t.Repo = githubRepo(ev.Entity.URL, ev.Repo)
		if l := ev.Entity.LinkedChangeProposal; l != nil {
			t.Number = l.ID
		}
	case event.SystemGitLab:
		t.Repo = gitlabProject(ev.Entity.URL, ev.Repo)
		t.MergeRequest = ev.Entity.Kind == event.KindChangeProposal || ev.Entity.LinkedChangeProposal != nil
		if l := ev.Entity.LinkedChangeProposal; l != nil {
			t.Number = l.ID
		}
	default:
		return Target{}, false
	}
	if c := ev.Transition.Comment; c != nil && c.ID != "" {
		fmt.Sscan(c.ID, &t.Comment) //nolint:errcheck // a non-numeric id leaves 0: the item itself
	}
	return t, true
}

// githubRepo is owner/name from a GitHub web address
// (https://host/owner/name/issues/7 or …/pull/7), else def.
func githubRepo(raw, def string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return def
	}
	p := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(p) >= 4 && (p[2] == "issues" || p[2] == "pull") {
		return p[0] + "/" + p[1]
	}
	return def
}

// gitlabProject is the project path from a GitLab web address
// (https://host/group/sub/project/-/issues/7), else def.
func gitlabProject(raw, def string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return def
	}
	if path, _, ok := strings.Cut(strings.Trim(u.Path, "/"), "/-/"); ok && path != "" {
		return path
	}
	return def
}
