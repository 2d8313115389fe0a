package githubentity

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
)

// Ghost is the account GitHub shows for a deleted user; an element whose
// user is missing is attributed to it, with role none.
const Ghost = "ghost"

// build maps what was read to the entity, its activity bounded
// (entity.Bound), its version over every element read with own naming
// the tool's own accounts (entity.VersionOver), and every human actor's
// role still empty (roles fills it in); source is the repository the
// entity lives in.
func build(ref entity.Ref, source string, p parts, own func(string) bool) (*entity.Entity, error) {
	e := &entity.Entity{Source: entity.Source{System: entity.SystemGitHub}, Kind: ref.Kind, ID: ref.ID, Repo: ref.Repo}
	var body string
	var user *gogithub.User
	var err error
	switch ref.Kind {
	case entity.KindWorkItem:
		body, user, err = fromIssue(e, p.issue)
	case entity.KindChangeProposal:
		body, user, err = fromPull(e, p.pull, source)
	default:
		err = fmt.Errorf("kind %q: want %s or %s", ref.Kind, entity.KindWorkItem, entity.KindChangeProposal)
	}
	if err != nil {
		return nil, err
	}
	if msg := event.URLProblem(e.URL); msg != "" {
		return nil, fmt.Errorf("html_url %q: %s", e.URL, msg)
	}
	els := p.elements(e.State.Author)
	if body != "" {
		a := actorOf(user, e.State.Author)
		a.IsEntityAuthor = true
		els = append(els, entity.TextElement(entity.ElementBody, strconv.FormatInt(e.ID, 10), e.State.Created, a, body))
	}
	if err := checkTimes(e.State, els); err != nil {
		return nil, err
	}
	els, cut := p.horizon(els)
	e.Activity, e.ActivityTruncated = entity.Bound(els)
	e.ActivityTruncated = e.ActivityTruncated || cut
	e.Version = entity.VersionOver(e, els, cut, own)
	return e, nil
}

// checkTimes refuses times that RFC 3339 cannot write (years outside
// 1–9999 in UTC): an answer that is not GitHub's.
func checkTimes(st entity.State, els []entity.Element) error {
	bad := func(t time.Time) bool { return !t.IsZero() && (t.Year() < 1 || t.Year() > 9999) }
	for _, t := range []time.Time{st.Created, st.Updated, st.Closed, st.Merged} {
		if bad(t) {
			return fmt.Errorf("time %s is out of range", t)
		}
	}
	for _, el := range els {
		if bad(el.Created) {
			return fmt.Errorf("%s %s: time %s is out of range", el.Kind, el.ID, el.Created)
		}
	}
	return nil
}

// horizon drops the elements that a cut listing may not have enumerated:
// those not newer than the oldest item kept of any cut listing. cut
// reports whether a listing was cut.
func (p parts) horizon(els []entity.Element) (kept []entity.Element, cut bool) {
	var h time.Time // the newest of the cut listings' oldest items
	edge := func(was bool, times []time.Time) {
		if !was || len(times) == 0 {
			return
		}
		cut = true
		if oldest := slices.MinFunc(times, time.Time.Compare); oldest.After(h) {
			h = oldest
		}
	}
	edge(p.commentsCut, timesOf(p.comments, func(c *gogithub.IssueComment) time.Time { return c.GetCreatedAt().Time }))
	edge(p.eventsCut, timesOf(p.events, func(e *gogithub.IssueEvent) time.Time { return e.GetCreatedAt().Time }))
	edge(p.reviewsCut, timesOf(p.reviews, func(r *gogithub.PullRequestReview) time.Time { return r.GetSubmittedAt().Time }))
	if !cut {
		return els, false
	}
	for _, el := range els {
		if el.Created.After(h) {
			kept = append(kept, el)
		}
	}
	return kept, true
}

// elements maps the listings to elements, each listing newest first (so
// that elements of one instant stay newest first through entity.Bound),
// an item listed twice (a page that shifted between two reads) once.
func (p parts) elements(author string) []entity.Element {
	var els []entity.Element
	seen := map[[2]string]bool{}
	add := func(el entity.Element) {
		if k := [2]string{el.Kind, el.ID}; !seen[k] {
			seen[k] = true
			els = append(els, el)
		}
	}
	for _, c := range slices.Backward(p.comments) {
		if c.GetBody() != "" && c.CreatedAt != nil {
			add(entity.TextElement(entity.ElementComment, strconv.FormatInt(c.GetID(), 10), c.GetCreatedAt().UTC(),
				actorOf(c.User, author), c.GetBody()))
		}
	}
	for _, rv := range slices.Backward(p.reviews) {
		if el, ok := reviewElement(rv, author); ok {
			add(el)
		}
	}
	for _, ev := range slices.Backward(p.events) {
		name := event.Truncate(ev.GetLabel().GetName(), event.MaxLabel)
		if ev.GetEvent() == "labeled" && name != "" && ev.CreatedAt != nil {
			add(entity.Element{Kind: entity.ElementLabel, ID: strconv.FormatInt(ev.GetID(), 10),
				Created: ev.GetCreatedAt().UTC(), Actor: actorOf(ev.Actor, author), Label: name})
		}
	}
	return els
}

func timesOf[T any](items []*T, at func(*T) time.Time) []time.Time {
	out := make([]time.Time, 0, len(items))
	for _, it := range items {
		out = append(out, at(it))
	}
	return out
}

// actorOf describes an element's user; a human's role is left for roles.
func actorOf(u *gogithub.User, author string) event.Actor {
	login := u.GetLogin()
	if login == "" {
		return event.Actor{ID: Ghost, Kind: event.ActorHuman, Role: event.RoleNone}
	}
	a := event.Actor{ID: event.Truncate(login, event.MaxID), Kind: event.ActorHuman, IsEntityAuthor: strings.EqualFold(login, author)}
	if ghaevent.IsBot(u) {
		a.Kind, a.Role = event.ActorBot, event.RoleNone
	}
	return a
}

// reviewElement maps a submitted review with text; pending reviews (seen
// only by their author) and reviews without text are not elements.
func reviewElement(rv *gogithub.PullRequestReview, author string) (entity.Element, bool) {
	state := strings.ToLower(rv.GetState())
	switch state {
	case "approved", "changes_requested", "commented", "dismissed":
	default:
		return entity.Element{}, false
	}
	if rv.SubmittedAt == nil || rv.GetBody() == "" {
		return entity.Element{}, false
	}
	el := entity.TextElement(entity.ElementReview, strconv.FormatInt(rv.GetID(), 10), rv.GetSubmittedAt().UTC(),
		actorOf(rv.User, author), rv.GetBody())
	el.ReviewState = state
	return el, true
}

// fromIssue fills e's identity and state from an issue and returns its
// description.
func fromIssue(e *entity.Entity, is *gogithub.Issue) (string, *gogithub.User, error) {
	if is == nil {
		return "", nil, errors.New("no issue")
	}
	if is.IsPullRequest() {
		return "", nil, fmt.Errorf("#%d is a pull request, not an issue: resolve it as a %s", is.GetNumber(), entity.KindChangeProposal)
	}
	st, err := answer{what: "issue", number: is.GetNumber(), url: is.GetHTMLURL(), status: is.GetState(), title: is.GetTitle(),
		user: is.User, labels: is.Labels, assignees: is.Assignees, created: is.CreatedAt, updated: is.UpdatedAt, closed: is.ClosedAt}.identify(e)
	if err != nil {
		return "", nil, err
	}
	st.StatusCategory = entity.StatusTodo
	if st.Status != "open" {
		st.StatusCategory = entity.StatusDone
	}
	e.State = st
	return is.GetBody(), is.User, nil
}

// fromPull fills e's identity and state from a pull request living in
// source and returns its description.
func fromPull(e *entity.Entity, pr *gogithub.PullRequest, source string) (string, *gogithub.User, error) {
	if pr == nil {
		return "", nil, errors.New("no pull request")
	}
	st, err := answer{what: "pull request", number: pr.GetNumber(), url: pr.GetHTMLURL(), status: pr.GetState(), title: pr.GetTitle(),
		user: pr.User, labels: pr.Labels, assignees: pr.Assignees, created: pr.CreatedAt, updated: pr.UpdatedAt, closed: pr.ClosedAt}.identify(e)
	if err != nil {
		return "", nil, err
	}
	st.StatusCategory = entity.StatusInProgress
	if pr.MergedAt != nil {
		st.Status, st.Merged = "merged", pr.GetMergedAt().UTC()
	}
	if st.Status != "open" {
		st.StatusCategory = entity.StatusDone
	}
	cp := ghaevent.ChangeProposalOf(pr, source)
	st.ChangeProposal = &entity.ChangeProposal{Draft: pr.GetDraft(), Fork: cp.IsFork, HeadRef: cp.HeadRef,
		BaseRef: cp.BaseRef, HeadSHA: cp.HeadSHA}
	e.State = st
	return pr.GetBody(), pr.User, nil
}

// answer is what an issue and a pull request both carry, as GitHub
// answered it: what it is ("issue", "pull request"), its number, page and
// state.
type answer struct {
	what, url, status, title string
	number                   int
	user                     *gogithub.User
	labels                   []*gogithub.Label
	assignees                []*gogithub.User
	created, updated, closed *gogithub.Timestamp
}

// identify checks that a is the item e asked for, sets e's URL and
// returns a's state (stateOf).
func (a answer) identify(e *entity.Entity) (entity.State, error) {
	if int64(a.number) != e.ID {
		return entity.State{}, fmt.Errorf("GitHub answered %s #%d for #%d", a.what, a.number, e.ID)
	}
	e.URL = a.url
	return stateOf(a.status, a.title, a.user, a.labels, a.assignees, a.created, a.updated, a.closed)
}

// stateOf is the state an issue and a pull request share.
func stateOf(status, title string, user *gogithub.User, labels []*gogithub.Label, assignees []*gogithub.User,
	created, updated, closed *gogithub.Timestamp) (entity.State, error) {
	st := entity.State{Status: status, Title: event.Truncate(title, entity.MaxTitle), Labels: []string{}, Assignees: []string{}}
	if status != "open" && status != "closed" {
		return st, fmt.Errorf("state %q: want open or closed", status)
	}
	if st.Author = event.Truncate(user.GetLogin(), event.MaxID); st.Author == "" {
		st.Author = Ghost
	}
	if created == nil {
		return st, errors.New("no created_at")
	}
	st.Created, st.Updated = created.UTC(), created.UTC()
	if updated != nil {
		st.Updated = updated.UTC()
	}
	if closed != nil {
		st.Closed = closed.UTC()
	}
	for _, l := range labels {
		n := event.Truncate(l.GetName(), event.MaxLabel)
		switch {
		case n == "":
		case len(st.Labels) == event.MaxLabels:
			st.LabelsTruncated = true
		default:
			st.Labels = append(st.Labels, n)
		}
	}
	for _, a := range assignees {
		if n := event.Truncate(a.GetLogin(), event.MaxID); n != "" && len(st.Assignees) < entity.MaxAssignees {
			st.Assignees = append(st.Assignees, n)
		}
	}
	return st, nil
}
