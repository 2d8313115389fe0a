// Package gitlabevent is the gitlab-event input driver: it reads one GitLab
// webhook body (the TRIGGER_PAYLOAD file of a trigger pipeline, or a file),
// confirms it through the GitLab API and maps what GitLab confirms to a
// validated NormalizedEvent.
//
// Supported: issue events (open, reopen, close, update), merge request
// events (open, reopen, close, merge, update: new commits are
// synchronized, label changes label_changed, draft to ready marked_ready,
// a new title or description edited, anything else updated) and note
// events (create) on issues and merge requests. A note on a merge request
// is a work item linked to the merge request, so it shares the merge
// request's scope. Anything else is an input error.
//
// The payload is not proof: anyone holding the trigger token can start a
// pipeline with any body. The driver re-reads the issue or merge request,
// the note, the label events, the acting user and their membership, and
// refuses a body that differs (ErrNotConfirmed). See docs/gitlab.md.
//
// The mapping from API objects (Build) is separate from webhook parsing
// (ParseWebhook) so a poller can reuse it.
package gitlabevent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input"
)

// Name is the driver name.
const Name = drivername.GitLabEvent

// MaxPayloadBytes bounds the payload read (GitLab caps webhook bodies at
// 25 MB by default).
const MaxPayloadBytes = 25 << 20

// Options configures New.
type Options struct {
	// Payload is the webhook body; when nil it is read from Path
	// ($TRIGGER_PAYLOAD, a file variable holding a path, or --input-file),
	// or from Stdin when Path is "-".
	Payload []byte
	Path    string
	Stdin   io.Reader
	// Project is the project the webhook must come from and the API reads
	// address: a numeric id (CI_PROJECT_ID) or a path. Empty means the
	// payload's project id.
	Project string
	// Repo is event.repo (config `repo`); empty means the payload's
	// project.path_with_namespace.
	Repo string
	// API re-reads what the payload claims; required (see NewLookup).
	API API
	Log *slog.Logger
}

// Driver reads one GitLab webhook body.
type Driver struct {
	o   Options
	log *slog.Logger
	pos changepos.Pos // the confirmed change's position (ChangePos)
}

// ChangePos is the position on GitLab's clock of the change the last Read
// confirmed (zero before): a note's or label event's creation and id, an
// opening's creation, else the subject's last update. gitlab-poll
// detects the same position for the same change (NotePos,
// LabelEventPos), so that runs carry the same idempotency key on both
// paths (docs/gitlab.md, "Backstop: gitlab-poll").
func (d *Driver) ChangePos() changepos.Pos { return d.pos }

var _ input.Driver = (*Driver)(nil)

// New validates o and returns a Driver.
func New(o Options) (*Driver, error) {
	if o.Payload == nil && o.Path == "" {
		return nil, errors.New("gitlab-event: no payload: run in a trigger pipeline (TRIGGER_PAYLOAD) or pass --input-file")
	}
	if o.API == nil {
		return nil, errors.New("gitlab-event: no GitLab API to confirm the payload: set CI_API_V4_URL and GITLAB_TOKEN")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Driver{o: o, log: o.Log}, nil
}

// Name returns "gitlab-event".
func (d *Driver) Name() string { return Name }

// Read returns the event of the payload. A merge request or issue update
// that added or removed several labels at once yields the first label
// change (added labels first); ReadAll yields one event per label.
func (d *Driver) Read(ctx context.Context) (*event.Event, error) {
	evs, err := d.ReadAll(ctx)
	if err != nil {
		return nil, err
	}
	if len(evs) > 1 {
		d.log.Warn("several labels changed in one webhook; dispatching the first", "label", evs[0].Transition.Label.Name, "changes", len(evs))
	}
	return evs[0], nil
}

// ReadAll parses the payload, confirms it through the API, maps it and
// validates the result: one event, or one per label added or removed.
// Every error names what is wrong; ErrNotConfirmed marks a payload GitLab
// does not confirm.
func (d *Driver) ReadAll(ctx context.Context) ([]*event.Event, error) {
	data, src, err := d.payload()
	if err != nil {
		return nil, err
	}
	c, err := ParseWebhook(data)
	if err != nil {
		return nil, fmt.Errorf("gitlab-event (%s): %w", src, err)
	}
	evs, err := d.mapClaim(ctx, c)
	if err != nil {
		if errors.Is(err, ErrNotConfirmed) {
			d.log.Error("gitlab-event payload refused", "object_kind", c.ObjectKind, "project", c.Project, "iid", c.IID, "reason", err.Error())
		}
		return nil, fmt.Errorf("gitlab-event %s %s (%s): %w", c.ObjectKind, c.Action, src, err)
	}
	for _, ev := range evs {
		if err := ev.Validate(); err != nil {
			return nil, fmt.Errorf("gitlab-event %s (%s): the mapped event is invalid: %w", c.ObjectKind, src, err)
		}
	}
	return evs, nil
}

func (d *Driver) payload() ([]byte, string, error) {
	return input.ReadPayload(Name, d.o.Payload, d.o.Path, d.o.Stdin, MaxPayloadBytes)
}

// mapClaim checks the claim's project, confirms it and builds the events.
func (d *Driver) mapClaim(ctx context.Context, c *Claim) ([]*event.Event, error) {
	project := strconv.FormatInt(c.ProjectID, 10)
	if p := strings.Trim(d.o.Project, "/"); p != "" {
		if p != project && !strings.EqualFold(p, c.Project) {
			return nil, fmt.Errorf("%w: project: the webhook is from project %d (%s), not %s", ErrNotConfirmed, c.ProjectID, c.Project, p)
		}
		project = p
	}
	repo := d.o.Repo
	if repo == "" {
		repo = c.Project
	}
	v, err := verify(ctx, d.o.API, project, c)
	if err != nil {
		return nil, err
	}
	d.pos = v.pos
	actor := ActorOf(v.user, v.member, v.authorID)
	switch {
	case v.memberErr != nil:
		actor.Role = event.RoleNone
		d.log.Warn("membership lookup failed; actor role is none", "actor", v.user.Username, "project", c.Project, "error", v.memberErr.Error())
	case v.member == nil:
		d.log.Info("actor is not a member of the project; role external", "actor", v.user.Username, "project", c.Project)
	}
	ch := Change{Kind: c.Transition, Note: v.note, RawType: c.ObjectKind, RawAction: c.Action}
	if c.Transition != event.LabelChanged {
		ev, err := Build(repo, v.subject, ch, actor)
		if err != nil {
			return nil, err
		}
		return []*event.Event{ev}, nil
	}
	evs := make([]*event.Event, 0, len(c.LabelChanges))
	for _, l := range c.LabelChanges {
		ch.Label = &event.Label{Name: event.Truncate(l.Name, event.MaxLabel), Action: l.Action}
		ev, err := Build(repo, v.subject, ch, actor)
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}
