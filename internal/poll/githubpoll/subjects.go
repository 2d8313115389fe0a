package githubpoll

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// subject is an issue or pull request updated within the window, with
// its comments and label events within the window.
type subject struct {
	issue    *gogithub.Issue
	updated  time.Time
	comments []*gogithub.IssueComment
	labels   []*gogithub.IssueEvent
	// complete: the window's comment and event listings ended before
	// their page limit, so they hold every comment and label event
	// created after the window's floor
	complete bool
}

func (s subject) number() int { return s.issue.GetNumber() }

func (s subject) isPR() bool { return s.issue.IsPullRequest() }

// Key is the item id: "#" and the number (forgepoll.Subject).
func (s subject) Key() string { return "#" + strconv.Itoa(s.number()) }

// UpdatedAt is the updated_at the listing showed (forgepoll.Subject).
func (s subject) UpdatedAt() time.Time { return s.updated }

// tail is the subject's scope key without its harness: what every
// harness's idempotency key for it holds before "@" (a comment on a pull
// request shares the pull request's scope).
func (s subject) tail(repo string) string {
	kind := event.KindWorkItem
	if s.isPR() {
		kind = event.KindChangeProposal
	}
	return repo + ":" + event.SystemGitHub + ":" + kind + ":" + strconv.Itoa(s.number())
}

// scan reads the three repository-wide listings of the window (issues and
// pull requests updated since floor, comments updated since floor, the
// newest issue events back to floor), each conditionally, and returns the
// issues and pull requests with their comments and label events.
func (p *Poller) scan(ctx context.Context, floor time.Time) ([]subject, error) {
	since := floor.UTC().Format(time.RFC3339)
	base := fmt.Sprintf("repos/%s/%s/issues", p.owner, p.name)
	q := url.Values{"state": {"all"}, "sort": {"updated"}, "direction": {"desc"}, "since": {since}, "per_page": {"100"}}
	issues, err := list[gogithub.Issue](ctx, p, base+"?"+q.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("github-poll: listing issues and pull requests: %w", err)
	}
	q = url.Values{"sort": {"updated"}, "direction": {"desc"}, "since": {since}, "per_page": {"100"}}
	comments, err := list[gogithub.IssueComment](ctx, p, base+"/comments?"+q.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("github-poll: listing comments: %w", err)
	}
	events, err := list[gogithub.IssueEvent](ctx, p, base+"/events?per_page=100", func(page []json.RawMessage) bool {
		return newerThan(page, floor)
	})
	if err != nil {
		return nil, fmt.Errorf("github-poll: listing issue events: %w", err)
	}
	subs := make([]subject, 0, len(issues))
	at := map[int]int{}
	complete := len(comments) < maxPages*100 && len(events) < maxPages*100
	for _, is := range issues {
		if is.GetNumber() < 1 || is.UpdatedAt == nil {
			continue
		}
		at[is.GetNumber()] = len(subs)
		subs = append(subs, subject{issue: is, updated: is.GetUpdatedAt().UTC(), complete: complete})
	}
	for _, c := range comments {
		n, err := strconv.Atoi(path.Base(c.GetIssueURL()))
		if i, ok := at[n]; ok && err == nil && c.GetCreatedAt().After(floor) {
			subs[i].comments = append(subs[i].comments, c)
		}
	}
	for _, e := range events {
		if e.GetEvent() != "labeled" && e.GetEvent() != "unlabeled" || !e.GetCreatedAt().After(floor) {
			continue
		}
		if i, ok := at[e.GetIssue().GetNumber()]; ok {
			subs[i].labels = append(subs[i].labels, e)
		}
	}
	return subs, nil
}

// list reads a listing (see listing) and decodes its items.
func list[T any](ctx context.Context, p *Poller, u string, more func([]json.RawMessage) bool) ([]*T, error) {
	raw, _, err := p.listing(ctx, u, "", more)
	if err != nil {
		return nil, err
	}
	return decode[T](raw)
}

// newerThan reports whether the last (oldest) event of a page is newer
// than floor, so that the next page may hold events of the window.
func newerThan(page []json.RawMessage, floor time.Time) bool {
	if len(page) == 0 {
		return false
	}
	var e struct {
		CreatedAt time.Time `json:"created_at"`
	}
	return json.Unmarshal(page[len(page)-1], &e) == nil && e.CreatedAt.After(floor)
}
