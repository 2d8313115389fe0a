package ghaevent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// ChangePos is the position on GitHub's clock of the change the last
// Read mapped, which both paths key a run by
// (changepos.Key; docs/github.md, "Backstop: github-poll"):
// see PosOf. Zero for other actions and before a successful Read: such
// runs carry no idempotency key.
func (d *Driver) ChangePos() changepos.Pos { return d.pos }

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
// its change position (PosOf).
func (m *Mapper) Map(ctx context.Context, eventName string, payload any) (*event.Event, changepos.Pos, error) {
	if !supportedEvent(eventName) {
		return nil, changepos.Pos{}, fmt.Errorf("gha-event: unsupported event %q: gha-event handles %s", eventName, supportedList())
	}
	o := m.o
	o.EventName = eventName
	d := &Driver{o: o, log: o.Log}
	ev, err := d.mapParsed(ctx, payload)
	if err != nil {
		return nil, changepos.Pos{}, fmt.Errorf("gha-event %s: %w", eventName, err)
	}
	if ev == nil {
		return nil, changepos.Pos{}, errors.New("gha-event: nothing mapped")
	}
	if err := ev.Validate(); err != nil {
		return nil, changepos.Pos{}, fmt.Errorf("gha-event %s: the mapped event is invalid: %w", eventName, err)
	}
	return ev, PosOf(payload), nil
}

// PosOf is the position of the change a parsed webhook payload reports,
// on GitHub's clock: an issue's or pull request's created_at when it was
// opened (no id); a comment's created_at and id; the issue's or pull
// request's updated_at for a label change (GitHub stamps the label event
// with the same instant; the payload names no event id, so neither path
// keys a label change by one); a review's submitted_at and id. GitHub
// stamps at the second: the ids tell apart the comments and reviews of
// one second. Zero for other actions: their runs carry no idempotency
// key.
func PosOf(parsed any) changepos.Pos {
	var ts *gogithub.Timestamp
	var id int64
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
			ts, id = p.GetComment().CreatedAt, p.GetComment().GetID()
		}
	case *gogithub.PullRequestEvent:
		ts = pullChangeTime(p.GetAction(), p.GetPullRequest())
	case *gogithub.PullRequestTargetEvent:
		ts = pullChangeTime(p.GetAction(), p.GetPullRequest())
	case *gogithub.PullRequestReviewEvent:
		if p.GetAction() == "submitted" {
			ts, id = p.GetReview().SubmittedAt, p.GetReview().GetID()
		}
	}
	if ts == nil {
		return changepos.Pos{}
	}
	return changepos.Pos{At: ts.UTC(), ID: max(id, 0)}
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
