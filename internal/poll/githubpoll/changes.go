package githubpoll

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// payload is a webhook event struct built from listings, as GitHub would
// have delivered it, with its event name.
type payload struct {
	name string
	body any
}

// changes builds the subject's changes within the window as the webhook
// payloads of the same changes and maps those at a position keep accepts
// (nil: all) with gha-event's mapping (ghaevent.Mapper), oldest first by
// position (time, then id). A change's position is its payload's
// (ghaevent.PosOf): the one the event path keys its run by. Mapping looks
// the actor's role up, so a change keep refuses costs nothing more.
// Edits, pushes (synchronize), closing and reopening are left to the
// event workflow (docs/github.md, "Backstop: github-poll").
func (p *Poller) changes(ctx context.Context, lk *lookups, s subject, floor time.Time, keep func(changepos.Pos) bool) ([]poll.Change, error) {
	pls, err := p.payloads(ctx, lk, s, floor)
	if err != nil {
		return nil, err
	}
	m := p.mapper(lk)
	out := make([]poll.Change, 0, len(pls))
	for _, pl := range pls {
		if keep != nil && !keep(ghaevent.PosOf(pl.body)) {
			continue
		}
		ev, pos, err := m.Map(ctx, pl.name, pl.body)
		if err != nil {
			p.o.Log.Warn("github-poll: skipping a change that does not map", "subject", s.Key(), "event", pl.name, "error", err.Error())
			continue
		}
		out = append(out, poll.Change{At: pos.At, ID: pos.ID, Event: ev})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos().Compare(out[j].Pos()) < 0 })
	return out, nil
}

// payloads builds the webhook payloads of the subject's changes after
// floor: its opening, comments, label changes and submitted reviews.
func (p *Poller) payloads(ctx context.Context, lk *lookups, s subject, floor time.Time) ([]payload, error) {
	repo := &gogithub.Repository{FullName: gogithub.Ptr(p.o.Repo)}
	var out []payload
	for _, c := range s.comments {
		out = append(out, payload{"issue_comment", &gogithub.IssueCommentEvent{Action: gogithub.Ptr("created"),
			Issue: s.issue, Comment: c, Repo: repo, Sender: c.User}})
	}
	opened := s.issue.GetCreatedAt().After(floor)
	if !s.isPR() {
		if opened {
			out = append(out, payload{"issues", &gogithub.IssuesEvent{Action: gogithub.Ptr("opened"), Issue: s.issue,
				Repo: repo, Sender: s.issue.User}})
		}
		for _, e := range s.labels {
			is := *s.issue
			is.UpdatedAt = e.CreatedAt // the label change's instant, as in its webhook payload
			out = append(out, payload{"issues", &gogithub.IssuesEvent{Action: e.Event, Issue: &is, Label: e.Label,
				Repo: repo, Sender: e.Actor}})
		}
		return out, nil
	}
	pr, err := lk.PullRequest(ctx, p.owner, p.name, s.number())
	if err != nil {
		return nil, fmt.Errorf("reading pull request %d: %w", s.number(), err)
	}
	if opened {
		out = append(out, payload{"pull_request", &gogithub.PullRequestEvent{Action: gogithub.Ptr("opened"),
			Number: pr.Number, PullRequest: pr, Repo: repo, Sender: pr.User}})
	}
	for _, e := range s.labels {
		c := *pr
		c.UpdatedAt = e.CreatedAt
		out = append(out, payload{"pull_request", &gogithub.PullRequestEvent{Action: e.Event, Number: pr.Number,
			PullRequest: &c, Label: e.Label, Repo: repo, Sender: e.Actor}})
	}
	reviews, err := lk.reviewsOf(ctx, p, s.number())
	if err != nil {
		return nil, err
	}
	for _, rv := range reviews {
		if strings.EqualFold(rv.GetState(), "PENDING") || !rv.GetSubmittedAt().After(floor) {
			continue
		}
		out = append(out, payload{"pull_request_review", &gogithub.PullRequestReviewEvent{Action: gogithub.Ptr("submitted"),
			Review: rv, PullRequest: pr, Repo: repo, Sender: rv.User}})
	}
	return out, nil
}

// reviews lists the reviews of pull request n.
func (p *Poller) reviews(ctx context.Context, n int) ([]*gogithub.PullRequestReview, error) {
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/reviews?per_page=100", p.owner, p.name, n)
	rs, err := list[gogithub.PullRequestReview](ctx, p, u, nil)
	if err != nil {
		return nil, fmt.Errorf("listing the reviews of pull request %d: %w", n, err)
	}
	return rs, nil
}
