package githubentity

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/github"
)

// Listing bounds.
const (
	// PerPage is the page size of every listing (GitHub's largest).
	PerPage = 100
	// MaxPages is the most pages kept of one listing (comments, issue
	// events, reviews): its newest MaxPages*PerPage items. A longer
	// listing costs MaxPages+1 calls (its first page tells where its last
	// is) and the entity is marked activity_truncated.
	MaxPages = 3
)

// parts is what an entity is built from: the issue (work item) or the
// pull request (change proposal) and its listings; a listing cut to its
// newest pages is marked.
type parts struct {
	issue    *gogithub.Issue
	pull     *gogithub.PullRequest
	comments []*gogithub.IssueComment
	events   []*gogithub.IssueEvent
	reviews  []*gogithub.PullRequestReview

	commentsCut, eventsCut, reviewsCut bool
}

// read reads what k does not hold.
func (r *Resolver) read(ctx context.Context, owner, name string, ref entity.Ref, k Known) (parts, error) {
	n := int(ref.ID)
	p := parts{issue: k.Issue, pull: k.Pull, comments: k.Comments, events: k.Events, reviews: k.Reviews}
	var err error
	switch ref.Kind {
	case entity.KindWorkItem:
		err = getOnce(ctx, r, "the issue", &p.issue, func(ctx context.Context) (*gogithub.Issue, *gogithub.Response, error) {
			return r.c.Issues.Get(ctx, owner, name, n)
		})
	case entity.KindChangeProposal:
		err = getOnce(ctx, r, "the pull request", &p.pull, func(ctx context.Context) (*gogithub.PullRequest, *gogithub.Response, error) {
			return r.c.PullRequests.Get(ctx, owner, name, n)
		})
	default:
		return p, fmt.Errorf("kind %q: want %s or %s", ref.Kind, entity.KindWorkItem, entity.KindChangeProposal)
	}
	if err != nil {
		return p, err
	}
	if !k.CommentsKnown {
		p.comments, p.commentsCut, err = newest(ctx, r, "comments", func(ctx context.Context, lo gogithub.ListOptions) ([]*gogithub.IssueComment, *gogithub.Response, error) {
			return r.c.Issues.ListComments(ctx, owner, name, n, &gogithub.IssueListCommentsOptions{ListOptions: lo})
		})
		if err != nil {
			return p, err
		}
	}
	if !k.EventsKnown {
		p.events, p.eventsCut, err = newest(ctx, r, "issue events", func(ctx context.Context, lo gogithub.ListOptions) ([]*gogithub.IssueEvent, *gogithub.Response, error) {
			return r.c.Issues.ListIssueEvents(ctx, owner, name, n, &lo)
		})
		if err != nil {
			return p, err
		}
	}
	if ref.Kind == entity.KindChangeProposal && !k.ReviewsKnown {
		p.reviews, p.reviewsCut, err = newest(ctx, r, "reviews", func(ctx context.Context, lo gogithub.ListOptions) ([]*gogithub.PullRequestReview, *gogithub.Response, error) {
			return r.c.PullRequests.ListReviews(ctx, owner, name, n, &lo)
		})
	}
	return p, err
}

// getOnce reads one object into *dst through r.get, unless *dst already
// holds it (a caller read it).
func getOnce[T any](ctx context.Context, r *Resolver, what string, dst **T, call func(context.Context) (*T, *gogithub.Response, error)) error {
	if *dst != nil {
		return nil
	}
	return r.get(ctx, what, func(ctx context.Context) (*gogithub.Response, error) {
		var resp *gogithub.Response
		var err error
		*dst, resp, err = call(ctx)
		return resp, err
	})
}

// get runs one read under the policy; what names it in errors. A 404 or
// 410 wraps entity.ErrNotFound.
func (r *Resolver) get(ctx context.Context, what string, fn func(ctx context.Context) (*gogithub.Response, error)) error {
	_, err := github.Call(ctx, r.o.Policy, fn)
	var f *github.Failure
	switch {
	case err == nil:
		return nil
	case errors.As(err, &f) && (f.Status == http.StatusNotFound || f.Status == http.StatusGone):
		return fmt.Errorf("%w: reading %s: %v", entity.ErrNotFound, what, err)
	}
	return fmt.Errorf("reading %s: %w", what, err)
}

// newest reads a listing in GitHub's order (oldest first) and keeps its
// newest MaxPages pages: the first page, then, when its Link header says
// there are more, pages 2 … last, or when there are more than MaxPages
// pages, the last MaxPages of them (the first is dropped and cut is
// set). What is kept is complete from its oldest item on. A listing
// without a last-page link is followed page by page; one longer than
// MaxPages then fails: its newest items cannot be reached.
func newest[T any](ctx context.Context, r *Resolver, what string,
	fetch func(ctx context.Context, lo gogithub.ListOptions) ([]*T, *gogithub.Response, error)) (items []*T, cut bool, err error) {
	page := func(n int) ([]*T, *gogithub.Response, error) {
		var got []*T
		var resp *gogithub.Response
		err := r.get(ctx, fmt.Sprintf("the %s (page %d)", what, n), func(ctx context.Context) (*gogithub.Response, error) {
			var err error
			got, resp, err = fetch(ctx, gogithub.ListOptions{Page: n, PerPage: PerPage})
			return resp, err
		})
		return got, resp, err
	}
	items, resp, err := page(1)
	if err != nil || resp == nil || resp.NextPage == 0 {
		return items, false, err
	}
	first, last := 2, resp.LastPage
	if last > MaxPages {
		first, items, cut = last-MaxPages+1, nil, true
	}
	for n := first; last > 0 && n <= last; n++ {
		got, _, err := page(n)
		if err != nil {
			return nil, false, err
		}
		items = append(items, got...)
	}
	if last > 0 {
		return items, cut, nil
	}
	for n := 2; resp.NextPage != 0; n++ { // no last-page link: follow the next ones
		if n > MaxPages {
			return nil, false, fmt.Errorf("the %s have more than %d pages and GitHub named no last page", what, MaxPages)
		}
		var got []*T
		if got, resp, err = page(resp.NextPage); err != nil {
			return nil, false, err
		}
		items = append(items, got...)
	}
	return items, false, nil
}
