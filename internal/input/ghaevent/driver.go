// Package ghaevent is the gha-event input driver: it maps one GitHub
// Actions event payload ($GITHUB_EVENT_PATH and $GITHUB_EVENT_NAME, or a
// file and an event name) to a validated NormalizedEvent.
//
// Supported: issues (opened, reopened, edited, closed, labeled,
// unlabeled), issue_comment (created, on issues and pull requests),
// pull_request and pull_request_target (opened, reopened, synchronize,
// edited, closed/merged, ready_for_review, labeled, unlabeled) and
// pull_request_review (submitted). Anything else is an input error.
//
// The actor's role comes from the collaborator permission API; an unknown
// role or a failed lookup yields "none" (logged), and bots are never looked
// up. Fork detection fails closed: a missing head repository counts as a
// fork.
package ghaevent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input"
)

// Name is the driver name.
const Name = drivername.GHAEvent

// MaxPayloadBytes bounds the payload read (GitHub caps webhooks at 25 MB).
const MaxPayloadBytes = 25 << 20

// Options configures New.
type Options struct {
	// EventName is the GitHub event name ($GITHUB_EVENT_NAME / --event-name).
	EventName string
	// Payload is the event JSON; when nil it is read from Path
	// ($GITHUB_EVENT_PATH / --input-file), or from Stdin when Path is "-".
	Payload []byte
	Path    string
	Stdin   io.Reader
	// Repo is the target repository (config `repo`); empty means the
	// payload's repository.full_name.
	Repo string
	// Permissions looks up actor roles; nil means every role is none.
	Permissions PermissionLookup
	// Pulls completes issue_comment events on pull requests; nil means the
	// change proposal is described from the payload alone (fork: true).
	Pulls PullLookup
	Log   *slog.Logger
}

// Driver reads one GitHub Actions event.
type Driver struct {
	o   Options
	log *slog.Logger
	pos changepos.Pos // the change position of the last event read (ChangePos)
}

var _ input.Driver = (*Driver)(nil)

// New validates o and returns a Driver.
func New(o Options) (*Driver, error) {
	if o.EventName == "" {
		return nil, errors.New("gha-event: no event name: set GITHUB_EVENT_NAME or pass --event-name")
	}
	if o.Payload == nil && o.Path == "" {
		return nil, errors.New("gha-event: no payload: set GITHUB_EVENT_PATH or pass --input-file")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Driver{o: o, log: o.Log}, nil
}

// EnvSource returns the payload path and event name a GitHub Actions job
// provides ($GITHUB_EVENT_PATH, $GITHUB_EVENT_NAME).
func EnvSource(getenv func(string) string) (path, eventName string) {
	return getenv("GITHUB_EVENT_PATH"), getenv("GITHUB_EVENT_NAME")
}

// Name returns "gha-event".
func (d *Driver) Name() string { return Name }

// Read parses the payload, maps it and validates the result. Every error
// names the event and what is wrong; callers treat it as an input error.
func (d *Driver) Read(ctx context.Context) (*event.Event, error) {
	data, src, err := d.payload()
	if err != nil {
		return nil, err
	}
	ev, err := d.mapPayload(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("gha-event %s (%s): %w", d.o.EventName, src, err)
	}
	if err := ev.Validate(); err != nil {
		return nil, fmt.Errorf("gha-event %s (%s): the mapped event is invalid: %w", d.o.EventName, src, err)
	}
	return ev, nil
}

func (d *Driver) payload() ([]byte, string, error) {
	return input.ReadPayload(Name, d.o.Payload, d.o.Path, d.o.Stdin, MaxPayloadBytes)
}

func (d *Driver) mapPayload(ctx context.Context, data []byte) (*event.Event, error) {
	if !supportedEvent(d.o.EventName) {
		return nil, fmt.Errorf("unsupported event %q: gha-event handles %s", d.o.EventName, supportedList())
	}
	parsed, err := gogithub.ParseWebHook(d.o.EventName, data)
	if err != nil {
		return nil, fmt.Errorf("payload is not a valid %s event: %v", d.o.EventName, err)
	}
	ev, err := d.mapParsed(ctx, parsed)
	if err == nil {
		d.pos = PosOf(parsed)
	}
	return ev, err
}

func (d *Driver) mapParsed(ctx context.Context, parsed any) (*event.Event, error) {
	switch p := parsed.(type) {
	case *gogithub.IssuesEvent:
		return d.fromIssues(ctx, p)
	case *gogithub.IssueCommentEvent:
		return d.fromIssueComment(ctx, p)
	case *gogithub.PullRequestEvent:
		return d.fromPullRequest(ctx, p.GetAction(), p.GetPullRequest(), p.GetLabel(), p.GetRepo(), p.GetSender())
	case *gogithub.PullRequestTargetEvent:
		return d.fromPullRequest(ctx, p.GetAction(), p.GetPullRequest(), p.GetLabel(), p.GetRepo(), p.GetSender())
	case *gogithub.PullRequestReviewEvent:
		return d.fromReview(ctx, p)
	}
	return nil, fmt.Errorf("unsupported event %q", d.o.EventName)
}
