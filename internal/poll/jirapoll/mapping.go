package jirapoll

import (
	"context"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Source raw types of the events this driver produces.
const (
	RawIssue     = "issue"     // raw_action created: the issue was created
	RawComment   = "comment"   // raw_action created or updated (an edit)
	RawChangelog = "changelog" // raw_action: the changed field ids (rawAction)
)

// unknownActor stands for a change whose author Jira no longer reports.
const unknownActor = "unknown"

// mapper turns one issue's comments and changelog into changes.
type mapper struct {
	d   *Driver
	ctx context.Context
	me  string // the tool's own account id
	it  *poll.Item

	state *event.State // the issue's state, shared by its events (read-only)
}

// changes maps everything after the item's oldest checkpoint position.
func (m *mapper) changes(hs []jira.History, cs []jira.Comment) ([]poll.Change, error) {
	is := m.d.issue(m.it.ID).issue
	lo := m.it.Base.Min()
	var out []poll.Change
	add := func(at time.Time, ev *event.Event) { out = append(out, poll.Change{At: at, Event: ev}) }
	if lo.IsZero() && !is.Fields.Created.IsZero() {
		author := is.Fields.Creator
		if author == nil {
			author = is.Fields.Reporter
		}
		ev, err := m.event(author, event.Transition{Kind: event.Opened}, RawIssue, "created")
		if err != nil {
			return nil, err
		}
		add(is.Fields.Created.Time, ev)
	}
	for _, c := range jira.SortComments(cs, false) {
		at, action := c.Created.Time, "created"
		if !at.After(lo) {
			if !c.Updated.After(lo) {
				continue
			}
			at, action = c.Updated.Time, "updated"
		}
		cm := event.CommentOf(c.Text) // a long body is cut and marked truncated
		cm.ID, cm.ParentID = c.ID, c.ParentID
		tr := event.Transition{Kind: event.CommentAdded, Comment: cm}
		author := c.Author
		ev, err := m.event(&author, tr, RawComment, action)
		if err != nil {
			return nil, err
		}
		if feedback.IsOwn(c.Text) {
			// The tool's own reply (feedback's marker), whoever posted it:
			// never a request.
			ev.Actor.Kind, ev.Actor.Role = event.ActorBot, event.RoleNone
		}
		add(at, ev)
	}
	for _, h := range hs {
		if !h.Created.After(lo) {
			continue
		}
		evs, err := m.history(h)
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			add(h.Created.Time, ev)
		}
	}
	return out, nil
}

// history maps one changelog entry: one label_changed per label added or
// removed, closed/reopened when the status category moves into or out of
// done, one edited for summary/description, one updated for the rest.
func (m *mapper) history(h jira.History) ([]*event.Event, error) {
	var trs []event.Transition
	var edited, updated []string
	for _, ci := range h.Items {
		field := ci.FieldID
		if field == "" {
			field = strings.ToLower(ci.Field)
		}
		switch field {
		case "labels":
			added, removed := jira.DiffLabels(ci.FromString, ci.ToString)
			for _, l := range added {
				trs = append(trs, event.Transition{Kind: event.LabelChanged, Label: &event.Label{Name: event.Truncate(l, event.MaxLabel), Action: "added"}})
			}
			for _, l := range removed {
				trs = append(trs, event.Transition{Kind: event.LabelChanged, Label: &event.Label{Name: event.Truncate(l, event.MaxLabel), Action: "removed"}})
			}
		case "status":
			kind, err := m.statusKind(ci)
			if err != nil {
				return nil, err
			}
			if kind != "" {
				trs = append(trs, event.Transition{Kind: kind})
			} else {
				updated = append(updated, field)
			}
		case "summary", "description":
			edited = append(edited, field)
		default:
			updated = append(updated, field)
		}
	}
	var out []*event.Event
	for _, tr := range trs {
		action := "labels"
		if tr.Kind != event.LabelChanged {
			action = "status"
		}
		ev, err := m.event(&h.Author, tr, RawChangelog, action)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	for _, g := range []struct {
		kind   string
		fields []string
	}{{event.Edited, edited}, {event.Updated, updated}} {
		if len(g.fields) == 0 {
			continue
		}
		ev, err := m.event(&h.Author, event.Transition{Kind: g.kind}, RawChangelog, rawAction(g.fields))
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// statusKind is closed or reopened when a status change crosses the done
// category, else "".
func (m *mapper) statusKind(ci jira.ChangeItem) (string, error) {
	from, err := m.category(ci.From, ci.FromString)
	if err != nil {
		return "", err
	}
	to, err := m.category(ci.To, ci.ToString)
	if err != nil {
		return "", err
	}
	switch {
	case from != "done" && to == "done":
		return event.Closed, nil
	case from == "done" && to != "done":
		return event.Reopened, nil
	}
	return "", nil
}

func (m *mapper) category(id, name string) (string, error) {
	if id == "" {
		id = name
	}
	if id == "" {
		return "", nil
	}
	return m.d.o.API.StatusCategory(m.ctx, id)
}

// event builds a work_item event about the mapper's issue.
func (m *mapper) event(author *jira.User, tr event.Transition, rawType, rawAction string) (*event.Event, error) {
	is := m.d.issue(m.it.ID).issue
	actor, err := m.actor(author)
	if err != nil {
		return nil, err
	}
	if m.state == nil {
		labels, cut := event.StateLabels(is.Fields.Labels)
		m.state = &event.State{Labels: labels, LabelsTruncated: cut}
	}
	return &event.Event{
		Repo:       m.d.o.Repo,
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: m.d.issue(m.it.ID).id, URL: m.d.o.SiteURL + "/browse/" + is.Key, Key: is.Key},
		Transition: tr,
		Actor:      actor,
		State:      *m.state,
		Source:     event.Source{System: event.SystemJira, RawType: rawType, RawAction: rawAction},
	}, nil
}

// actor describes an author: a bot when Jira says the account is an app
// or it is the tool's own account; otherwise a human with the role its
// project roles grant.
func (m *mapper) actor(u *jira.User) (event.Actor, error) {
	is := m.d.issue(m.it.ID).issue
	if u == nil || u.AccountID == "" {
		return event.Actor{ID: unknownActor, Kind: event.ActorHuman, Role: event.RoleExternal}, nil
	}
	a := event.Actor{ID: u.AccountID, Kind: event.ActorHuman}
	if r := is.Fields.Reporter; r != nil && r.AccountID == u.AccountID {
		a.IsEntityAuthor = true
	}
	if u.AccountType == "app" || u.AccountID == m.me {
		a.Kind, a.Role = event.ActorBot, event.RoleNone
		return a, nil
	}
	project := m.d.o.Project
	if project == "" && is.Fields.Project != nil {
		project = is.Fields.Project.Key
	}
	if project == "" {
		project, _, _ = strings.Cut(is.Key, "-")
	}
	role, err := m.d.o.API.RoleOf(m.ctx, project, u.AccountID)
	if err != nil {
		return event.Actor{}, err
	}
	a.Role = role
	return a, nil
}
