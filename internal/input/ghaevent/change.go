package ghaevent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// ChangeTime is the time on GitHub's clock of the change the last Read
// mapped, the change id both paths key a run by
// (polllock.IdempotencyKey; docs/github.md, "Backstop: github-poll"):
// an issue's or pull request's created_at when it was opened, a comment's
// created_at, the issue's or pull request's updated_at for a label change
// (GitHub stamps the label event with the same instant), a review's
// submitted_at. Zero for other actions and before a successful Read: such
// runs carry no idempotency key.
func (d *Driver) ChangeTime() time.Time { return d.at }

// Mapper maps webhook event structs that were not read from a payload
// (the github-poll backstop builds them from API listings) with the rules
// of gha-event: actor roles, bots, forks, comment truncation.
type Mapper struct {
	o Options
}

// NewMapper returns a Mapper; Repo, Permissions, Pulls and Log are used
// as by New, the payload options are ignored.
func NewMapper(o Options) *Mapper {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Mapper{o: o}
}

// Map maps payload, a *gogithub.IssuesEvent, IssueCommentEvent,
// PullRequestEvent or PullRequestReviewEvent of event eventName, exactly as
// Read maps the same payload, validates the result and returns it with
// its change time (see ChangeTime).
func (m *Mapper) Map(ctx context.Context, eventName string, payload any) (*event.Event, time.Time, error) {
	if !supportedEvent(eventName) {
		return nil, time.Time{}, fmt.Errorf("gha-event: unsupported event %q: gha-event handles %s", eventName, supportedList())
	}
	o := m.o
	o.EventName = eventName
	d := &Driver{o: o, log: o.Log}
	ev, err := d.mapParsed(ctx, payload)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("gha-event %s: %w", eventName, err)
	}
	if ev == nil {
		return nil, time.Time{}, errors.New("gha-event: nothing mapped")
	}
	if err := ev.Validate(); err != nil {
		return nil, time.Time{}, fmt.Errorf("gha-event %s: the mapped event is invalid: %w", eventName, err)
	}
	return ev, changeTime(payload), nil
}

// changeTime is the change id of a parsed event (see ChangeTime).
func changeTime(parsed any) time.Time {
	var ts *gogithub.Timestamp
	switch p := parsed.(type) {
	case *gogithub.IssuesEvent:
		switch p.GetAction() {
		case "opened":
			ts = p.GetIssue().CreatedAt
		case "labeled", "unlabeled":
			ts = p.GetIssue().UpdatedAt
		}
	case *gogithub.IssueCommentEvent:
		if p.GetAction() == "created" {
			ts = p.GetComment().CreatedAt
		}
	case *gogithub.PullRequestEvent:
		ts = pullChangeTime(p.GetAction(), p.GetPullRequest())
	case *gogithub.PullRequestTargetEvent:
		ts = pullChangeTime(p.GetAction(), p.GetPullRequest())
	case *gogithub.PullRequestReviewEvent:
		if p.GetAction() == "submitted" {
			ts = p.GetReview().SubmittedAt
		}
	}
	if ts == nil {
		return time.Time{}
	}
	return ts.UTC()
}

func pullChangeTime(action string, pr *gogithub.PullRequest) *gogithub.Timestamp {
	switch action {
	case "opened":
		return pr.CreatedAt
	case "labeled", "unlabeled":
		return pr.UpdatedAt
	}
	return nil
}
