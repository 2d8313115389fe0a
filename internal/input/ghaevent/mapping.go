package ghaevent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/github"
)

// actions lists the supported actions per event and their transition kind.
var actions = map[string]map[string]string{
	"issues": {
		"opened": event.Opened, "reopened": event.Reopened, "edited": event.Edited,
		"closed": event.Closed, "labeled": event.LabelChanged, "unlabeled": event.LabelChanged,
	},
	"issue_comment":       {"created": event.CommentAdded},
	"pull_request":        prActions,
	"pull_request_target": prActions,
	"pull_request_review": {"submitted": event.ReviewSubmitted},
}

var prActions = map[string]string{
	"opened": event.Opened, "reopened": event.Reopened, "synchronize": event.Synchronized,
	"edited": event.Edited, "closed": event.Closed, "ready_for_review": event.MarkedReady,
	"labeled": event.LabelChanged, "unlabeled": event.LabelChanged,
}

func supportedEvent(name string) bool { _, ok := actions[name]; return ok }

func supportedList() string {
	names := make([]string, 0, len(actions))
	for n := range actions {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// transition returns the transition kind for action or an error listing
// the supported actions.
func (d *Driver) transition(action string) (string, error) {
	kinds := actions[d.o.EventName]
	if k, ok := kinds[action]; ok {
		return k, nil
	}
	var list []string
	for a := range kinds {
		list = append(list, a)
	}
	slices.Sort(list)
	return "", fmt.Errorf("unsupported %s action %q: supported are %s", d.o.EventName, action, strings.Join(list, ", "))
}

// base holds what every mapping needs from the payload's repository.
type base struct {
	owner, name, full string // where the event happened (for lookups)
	target            string // event.repo
}

func (d *Driver) baseOf(r *gogithub.Repository) (base, error) {
	full := r.GetFullName()
	target := d.o.Repo
	if target == "" {
		target = full
	}
	if target == "" {
		return base{}, errors.New("payload has no repository.full_name and no target repo is configured")
	}
	if full == "" {
		full = target
	}
	owner, name, err := github.SplitRepo(full)
	if err != nil {
		return base{}, fmt.Errorf("repository.full_name: %v", err)
	}
	return base{owner: owner, name: name, full: full, target: target}, nil
}

// begin maps action to its transition kind and reads the payload's
// repository: the first steps of every mapping.
func (d *Driver) begin(action string, repo *gogithub.Repository) (string, base, error) {
	kind, err := d.transition(action)
	if err != nil {
		return "", base{}, err
	}
	b, err := d.baseOf(repo)
	return kind, b, err
}

// issueEvent begins the event of action on issue is, a work item, of
// repo (begin): the event and the repository's base.
func (d *Driver) issueEvent(action string, repo *gogithub.Repository, is *gogithub.Issue) (*event.Event, base, error) {
	kind, b, err := d.begin(action, repo)
	if err != nil {
		return nil, base{}, err
	}
	if is.GetNumber() < 1 || is.GetHTMLURL() == "" {
		return nil, base{}, errors.New("payload issue lacks number or html_url")
	}
	ev := d.newEvent(b, action, kind)
	ev.Entity = event.Entity{Kind: event.KindWorkItem, ID: int64(is.GetNumber()), URL: is.GetHTMLURL()}
	ev.State.Labels = labelNames(is.Labels)
	return ev, b, nil
}

// pullEvent begins the event of action on pull request pr, a change
// proposal, of repo (begin; a closed pull request that was merged is
// Merged): the event and the repository's base.
func (d *Driver) pullEvent(action string, repo *gogithub.Repository, pr *gogithub.PullRequest) (*event.Event, base, error) {
	kind, b, err := d.begin(action, repo)
	if err != nil {
		return nil, base{}, err
	}
	if kind == event.Closed && pr.GetMerged() {
		kind = event.Merged
	}
	if pr.GetNumber() < 1 || pr.GetHTMLURL() == "" {
		return nil, base{}, errors.New("payload pull_request lacks number or html_url")
	}
	ev := d.newEvent(b, action, kind)
	ev.Entity = event.Entity{Kind: event.KindChangeProposal, ID: int64(pr.GetNumber()), URL: pr.GetHTMLURL()}
	ev.State.Labels = labelNames(pr.Labels)
	ev.State.ChangeProposal = changeProposalOf(pr, b.full)
	return ev, b, nil
}

// withActor ends a mapping: ev, its actor the sender (d.actor, against
// author, the subject's author's login).
func (d *Driver) withActor(ctx context.Context, ev *event.Event, b base, sender *gogithub.User, author string) (*event.Event, error) {
	var err error
	ev.Actor, err = d.actor(ctx, b, sender, author)
	return ev, err
}

// withLabel sets the label of a label event from its payload's label l.
func withLabel(ev *event.Event, action string, l *gogithub.Label) (err error) {
	if ev.Transition.Kind == event.LabelChanged {
		ev.Transition.Label, err = labelOf(action, l)
	}
	return err
}

func (d *Driver) fromIssues(ctx context.Context, p *gogithub.IssuesEvent) (*event.Event, error) {
	is := p.GetIssue()
	ev, b, err := d.issueEvent(p.GetAction(), p.GetRepo(), is)
	if err != nil {
		return nil, err
	}
	if err := withLabel(ev, p.GetAction(), p.GetLabel()); err != nil {
		return nil, err
	}
	return d.withActor(ctx, ev, b, p.GetSender(), is.GetUser().GetLogin())
}

func (d *Driver) fromIssueComment(ctx context.Context, p *gogithub.IssueCommentEvent) (*event.Event, error) {
	is, c := p.GetIssue(), p.GetComment()
	ev, b, err := d.issueEvent(p.GetAction(), p.GetRepo(), is)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errors.New("payload has no comment")
	}
	ev.Transition.Comment = event.CommentWithID(c.GetBody(), c.GetID())
	if links := is.GetPullRequestLinks(); links != nil {
		prURL := links.GetHTMLURL()
		if prURL == "" {
			prURL = is.GetHTMLURL()
		}
		ev.Entity.LinkedChangeProposal = &event.LinkedChangeProposal{ID: ev.Entity.ID, URL: prURL}
		ev.State.ChangeProposal = d.lookupChangeProposal(ctx, b, is)
	}
	return d.withActor(ctx, ev, b, p.GetSender(), is.GetUser().GetLogin())
}

func (d *Driver) fromPullRequest(ctx context.Context, action string, pr *gogithub.PullRequest, label *gogithub.Label,
	repo *gogithub.Repository, sender *gogithub.User) (*event.Event, error) {
	ev, b, err := d.pullEvent(action, repo, pr)
	if err != nil {
		return nil, err
	}
	if err := withLabel(ev, action, label); err != nil {
		return nil, err
	}
	return d.withActor(ctx, ev, b, sender, pr.GetUser().GetLogin())
}

func (d *Driver) fromReview(ctx context.Context, p *gogithub.PullRequestReviewEvent) (*event.Event, error) {
	pr, rv := p.GetPullRequest(), p.GetReview()
	ev, b, err := d.pullEvent(p.GetAction(), p.GetRepo(), pr)
	if err != nil {
		return nil, err
	}
	state := strings.ToLower(rv.GetState())
	switch state {
	case "approved", "changes_requested", "commented", "dismissed":
	default:
		return nil, fmt.Errorf("review.state %q: want approved, changes_requested, commented or dismissed", rv.GetState())
	}
	reviewer := rv.GetUser().GetLogin()
	if reviewer == "" {
		reviewer = p.GetSender().GetLogin()
	}
	if reviewer == "" {
		return nil, errors.New("payload review has no user.login")
	}
	ev.Transition.Review = &event.Review{State: state, ReviewerID: event.Truncate(reviewer, event.MaxID)}
	return d.withActor(ctx, ev, b, p.GetSender(), pr.GetUser().GetLogin())
}

func (d *Driver) newEvent(b base, action, kind string) *event.Event {
	return &event.Event{
		Repo:       b.target,
		Transition: event.Transition{Kind: kind},
		State:      event.State{Labels: []string{}},
		Source:     event.Source{System: event.SystemGitHub, RawType: d.o.EventName, RawAction: action},
	}
}

func labelOf(action string, l *gogithub.Label) (*event.Label, error) {
	name := event.Truncate(l.GetName(), event.MaxLabel)
	if name == "" {
		return nil, fmt.Errorf("%s event has no label.name", action)
	}
	act := "added"
	if action == "unlabeled" {
		act = "removed"
	}
	return &event.Label{Name: name, Action: act}, nil
}

func labelNames(ls []*gogithub.Label) []string {
	out := []string{}
	for _, l := range ls {
		if n := event.Truncate(l.GetName(), event.MaxLabel); n != "" && len(out) < event.MaxLabels {
			out = append(out, n)
		}
	}
	return out
}
