package jiraentity

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/jira"
)

// unknownActor stands for an author Jira no longer reports (as in
// jira-poll's events).
const unknownActor = "unknown"

// categories maps Jira's status category keys to the entity's.
var categories = map[string]string{
	"new":           entity.StatusTodo,
	"indeterminate": entity.StatusInProgress,
	"done":          entity.StatusDone,
}

// FromIssue builds the entity of an issue already read whole (a
// jira.IssueRead: from ReadIssue, or from a search with
// jira.EntityFields and expand=changelog completed by
// jira.Client.CompleteIssue), for target repository repo, with the
// actors' roles from roles (nil: a new Roles). It makes no issue read:
// only the tool's own account (cached by the client) and the role
// memberships roles does not hold yet. Every answer is checked: an
// issue that does not map to a valid entity, or a failed role lookup, is
// an error.
func (r *Resolver) FromIssue(ctx context.Context, read jira.IssueRead, repo string, roles *Roles) (*entity.Entity, error) {
	if roles == nil {
		roles = r.Roles()
	}
	is := read.Issue
	e, err := r.state(is, repo)
	if err != nil {
		return nil, fmt.Errorf("jira entity %s: %w", is.Key, err)
	}
	me, err := r.api.Myself(ctx)
	if err != nil {
		return nil, fmt.Errorf("jira entity %s: reading the tool's own account: %w", is.Key, err)
	}
	m := &mapping{r: r, ctx: ctx, roles: roles, me: me.AccountID, author: e.State.Author, project: r.project(is)}
	els, err := m.elements(read)
	if err != nil {
		return nil, fmt.Errorf("jira entity %s: %w", is.Key, err)
	}
	cut := read.CommentsTotal > len(read.Comments) // older comments were not read: they are past the bound
	e.Activity, e.ActivityTruncated = entity.Bound(els)
	e.ActivityTruncated = e.ActivityTruncated || cut
	e.Version = entity.VersionOver(e, els, cut, m.own) // over every element read: the tool's own push none out
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("jira entity %s: the issue does not map to a valid entity: %w", is.Key, err)
	}
	return e, nil
}

// state maps the issue's identity and current state.
func (r *Resolver) state(is jira.Issue, repo string) (*entity.Entity, error) {
	id, err := strconv.ParseInt(is.ID, 10, 64)
	if err != nil || id <= 0 {
		return nil, fmt.Errorf("issue id %q is not a positive integer", is.ID)
	}
	f := is.Fields
	if f.Status == nil || f.Status.Name == "" {
		return nil, fmt.Errorf("the issue has no status")
	}
	cat, ok := categories[f.Status.StatusCategory.Key]
	if !ok {
		return nil, fmt.Errorf("status %q has status category %q: want new, indeterminate or done", f.Status.Name, f.Status.StatusCategory.Key)
	}
	if f.Created.IsZero() || f.Updated.IsZero() {
		return nil, fmt.Errorf("the issue has no created or updated time")
	}
	labels, cut := event.StateLabels(f.Labels)
	st := entity.State{
		Title: event.Truncate(f.Summary, entity.MaxTitle), Status: f.Status.Name, StatusCategory: cat,
		Labels: labels, LabelsTruncated: cut, Assignees: []string{}, Author: accountOf(author(f)),
		Created: f.Created.UTC(), Updated: f.Updated.UTC(),
	}
	if f.Assignee != nil && f.Assignee.AccountID != "" {
		st.Assignees = append(st.Assignees, f.Assignee.AccountID)
	}
	if f.ResolutionDate != nil && !f.ResolutionDate.IsZero() {
		st.Closed = f.ResolutionDate.UTC()
	}
	return &entity.Entity{
		Source: entity.Source{System: entity.SystemJira}, Kind: entity.KindWorkItem, ID: id, Key: is.Key,
		URL: r.o.SiteURL + "/browse/" + is.Key, Repo: repo, State: st, Activity: []entity.Element{},
	}, nil
}

// author is the issue's author: its reporter, else its creator.
func author(f jira.Fields) *jira.User {
	if f.Reporter != nil && f.Reporter.AccountID != "" {
		return f.Reporter
	}
	return f.Creator
}

func accountOf(u *jira.User) string {
	if u == nil || u.AccountID == "" {
		return unknownActor
	}
	return u.AccountID
}

// project is the project whose roles grant: Options.Project, else the
// issue's own (from its project field, else its key).
func (r *Resolver) project(is jira.Issue) string {
	if r.o.Project != "" {
		return r.o.Project
	}
	if p := is.Fields.Project; p != nil && p.Key != "" {
		return p.Key
	}
	p, _, _ := strings.Cut(is.Key, "-")
	return p
}

// mapping builds one issue's activity elements.
type mapping struct {
	r       *Resolver
	ctx     context.Context
	roles   *Roles
	me      string // the tool's own account id
	author  string // the issue's author's account id
	project string
}

// own reports whether id is one of the tool's own accounts.
func (m *mapping) own(id string) bool { return id == m.me || m.r.bots[id] }

// elements maps the description, the comments and the label
// applications. A comment without text is not listed (an element of
// text must have some).
func (m *mapping) elements(read jira.IssueRead) ([]entity.Element, error) {
	var out []entity.Element
	body, err := m.body(read)
	if err != nil {
		return nil, err
	}
	if body != nil {
		out = append(out, *body)
	}
	for _, c := range jira.SortComments(read.Comments, true) {
		if c.Text == "" {
			continue // no text (an attachment alone, or an unreadable body): nothing a trigger could read
		}
		who := &c.Author
		if u := c.UpdateAuthor; u != nil && u.AccountID != "" && u.AccountID != c.Author.AccountID && c.Updated.After(c.Created.Time) {
			who = u // the text is now the editor's
		}
		a, err := m.actor(who)
		if err != nil {
			return nil, err
		}
		out = append(out, entity.TextElement(entity.ElementComment, c.ID, c.Created.UTC(), a, c.Text))
	}
	for _, h := range read.Histories {
		els, err := m.labels(h)
		if err != nil {
			return nil, err
		}
		out = append(out, els...)
	}
	return out, nil
}

// body is the description's element, nil when it is empty. Its actor is
// whoever last set the description (the changelog), else the issue's
// creator, else its author; its time is that change's, else the
// issue's creation.
func (m *mapping) body(read jira.IssueRead) (*entity.Element, error) {
	f := read.Issue.Fields
	text, err := descriptionText(f.Description)
	if err != nil {
		return nil, err
	}
	if text == "" {
		return nil, nil
	}
	who, at := f.Creator, f.Created.Time
	if who == nil || who.AccountID == "" {
		who = author(f)
	}
	for _, h := range read.Histories { // oldest first: the last one wins
		for _, it := range h.Items {
			if it.FieldID == "description" || (it.FieldID == "" && strings.EqualFold(it.Field, "description")) {
				who, at = &h.Author, h.Created.Time
			}
		}
	}
	a, err := m.actor(who)
	if err != nil {
		return nil, err
	}
	el := entity.TextElement(entity.ElementBody, read.Issue.ID, at.UTC(), a, text)
	return &el, nil
}

// descriptionText renders the description: ADF, or a plain string.
func descriptionText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	text, err := jira.ADFToText(raw)
	if err != nil {
		return "", fmt.Errorf("the description is not readable: %w", err)
	}
	return text, nil
}

// labels maps one changelog entry's label additions (removals are not
// action-indicating). The element id is the entry's id, with ".n" for
// the n-th label one entry added.
func (m *mapping) labels(h jira.History) ([]entity.Element, error) {
	var names []string
	for _, it := range h.Items {
		if it.FieldID == "labels" || (it.FieldID == "" && strings.EqualFold(it.Field, "labels")) {
			added, _ := jira.DiffLabels(it.FromString, it.ToString)
			names = append(names, added...)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	if h.ID == "" {
		return nil, fmt.Errorf("a changelog entry of %s has no id", h.Created.Format(time.RFC3339))
	}
	a, err := m.actor(&h.Author)
	if err != nil {
		return nil, err
	}
	out := make([]entity.Element, 0, len(names))
	for i, l := range names {
		id := h.ID
		if len(names) > 1 {
			id += "." + strconv.Itoa(i+1)
		}
		out = append(out, entity.Element{Kind: entity.ElementLabel, ID: id, Created: h.Created.UTC(), Actor: a,
			Label: event.Truncate(l, event.MaxLabel)})
	}
	return out, nil
}

// actor describes an account as it is now: a bot when Jira says it is an
// app or it is one of the tool's own accounts (role none, no lookup);
// otherwise a human with the role its project roles grant now. An
// account Jira no longer reports is an external human.
func (m *mapping) actor(u *jira.User) (event.Actor, error) {
	if u == nil || u.AccountID == "" {
		return event.Actor{ID: unknownActor, Kind: event.ActorHuman, Role: event.RoleExternal}, nil
	}
	a := event.Actor{ID: u.AccountID, Kind: event.ActorHuman, IsEntityAuthor: u.AccountID == m.author}
	if u.AccountType == "app" || m.own(u.AccountID) {
		a.Kind, a.Role = event.ActorBot, event.RoleNone
		return a, nil
	}
	role, err := m.roles.Role(m.ctx, m.project, u.AccountID)
	if err != nil {
		return event.Actor{}, fmt.Errorf("the role of %s: %w", u.AccountID, err)
	}
	a.Role = role
	return a, nil
}
