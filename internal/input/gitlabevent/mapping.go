package gitlabevent

import (
	"errors"
	"regexp"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Subject is the issue or merge request an event is about, as the API
// returns it. Exactly one of Issue and MergeRequest is set. SourceProject
// is the path of a merge request's source project ("" when unknown).
type Subject struct {
	Issue         *gitlab.Issue
	MergeRequest  *gitlab.MergeRequest
	SourceProject string
}

// Change is what happened to the subject: a transition kind, the label
// (label_changed) or the note (comment_added), and the raw GitLab names
// (object_kind, action) for source.raw_type and raw_action.
type Change struct {
	Kind      string
	Label     *event.Label
	Note      *gitlab.Note
	RawType   string
	RawAction string
}

// Build maps API objects to a NormalizedEvent for repo (the webhook path
// and a poller share it). A note on a merge request is a work item linked
// to the merge request, so it shares the merge request's scope.
func Build(repo string, s Subject, ch Change, actor event.Actor) (*event.Event, error) {
	ev := &event.Event{Repo: repo, Transition: event.Transition{Kind: ch.Kind, Label: ch.Label}, Actor: actor,
		State:  event.State{Labels: labelNames(nil)},
		Source: event.Source{System: event.SystemGitLab, RawType: ch.RawType, RawAction: ch.RawAction}}
	switch {
	case s.MergeRequest != nil:
		mr := s.MergeRequest
		ev.Entity = event.Entity{Kind: event.KindChangeProposal, ID: mr.IID, URL: mr.WebURL}
		ev.State.Labels = labelNames(mr.Labels)
		ev.State.ChangeProposal = ChangeProposalOf(mr, repo, s.SourceProject)
		if ch.Note != nil {
			ev.Entity.Kind = event.KindWorkItem
			ev.Entity.LinkedChangeProposal = &event.LinkedChangeProposal{ID: mr.IID, URL: mr.WebURL}
		}
	case s.Issue != nil:
		ev.Entity = event.Entity{Kind: event.KindWorkItem, ID: s.Issue.IID, URL: s.Issue.WebURL}
		ev.State.Labels = labelNames(s.Issue.Labels)
	default:
		return nil, errors.New("no issue or merge request to build the event from")
	}
	if ch.Note != nil {
		ev.Transition.Comment = event.CommentWithID(ch.Note.Body, ch.Note.ID)
	}
	return ev, nil
}

var shaPattern = regexp.MustCompile(`^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$`)

// ChangeProposalOf describes mr. The source project is a fork unless its
// id equals the target's; a missing id counts as a fork (fails closed).
// sourcePath is the source project's path; for a merge request within the
// project it is repo.
func ChangeProposalOf(mr *gitlab.MergeRequest, repo, sourcePath string) *event.ChangeProposal {
	fork := mr.SourceProjectID == 0 || mr.SourceProjectID != mr.TargetProjectID
	if !fork {
		sourcePath = repo
	}
	cp := &event.ChangeProposal{ID: mr.IID, HeadRepo: event.Truncate(sourcePath, event.MaxRepoField),
		BaseRepo: event.Truncate(repo, event.MaxRepoField), HeadRef: event.Truncate(mr.SourceBranch, event.MaxRefField),
		BaseRef: event.Truncate(mr.TargetBranch, event.MaxRefField), IsFork: fork}
	if mr.Author != nil {
		cp.AuthorID = event.Truncate(mr.Author.Username, event.MaxID)
	}
	if shaPattern.MatchString(mr.SHA) {
		cp.HeadSHA = mr.SHA
	}
	return cp
}

func labelNames(ls gitlab.Labels) []string {
	out := []string{}
	for _, l := range ls {
		if n := event.Truncate(l, event.MaxLabel); n != "" && len(out) < event.MaxLabels {
			out = append(out, n)
		}
	}
	return out
}
