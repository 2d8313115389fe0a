package gitlabentity

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
)

// Snapshot is what an entity is built from: the issue or merge request
// (exactly one), its notes and its resource label events, each in any
// order. Cut is zero when the listings are complete; otherwise elements
// at or before it may be missing (a listing was cut at its page cap) and
// every element at or before it is left out, so that the activity is
// exactly the elements after Cut (Entity.ActivityTruncated).
type Snapshot struct {
	Issue        *gitlab.Issue
	MergeRequest *gitlab.MergeRequest
	Notes        []*gitlab.Note
	LabelEvents  []*gitlab.LabelEvent
	Cut          time.Time
}

// raw is an element before its actor's role is known: the user it names.
type raw struct {
	el   entity.Element
	user int64
}

// noteable is the common view of an issue and a merge request.
type noteable struct {
	iid                     int64
	title, desc, state, url string
	labels                  []string
	assignees               []string
	author                  *gitlab.BasicUser
	created, updated        *time.Time
	closed, merged          *time.Time
	change                  *entity.ChangeProposal
	kind                    string
	openCategory            string // the status category while open
}

func (s *Snapshot) noteable(repo string) (*noteable, error) {
	switch {
	case s.MergeRequest != nil && s.Issue == nil:
		mr := s.MergeRequest
		n := &noteable{iid: mr.IID, title: mr.Title, desc: mr.Description, state: mr.State, url: mr.WebURL,
			labels: mr.Labels, author: mr.Author, created: mr.CreatedAt, updated: mr.UpdatedAt, closed: mr.ClosedAt,
			merged: mr.MergedAt, kind: entity.KindChangeProposal, openCategory: entity.StatusInProgress}
		for _, a := range mr.Assignees {
			if a != nil {
				n.assignees = append(n.assignees, a.Username)
			}
		}
		cp := gitlabevent.ChangeProposalOf(mr, repo, "")
		n.change = &entity.ChangeProposal{Draft: mr.Draft, Fork: cp.IsFork, HeadRef: cp.HeadRef, BaseRef: cp.BaseRef, HeadSHA: cp.HeadSHA}
		return n, nil
	case s.Issue != nil && s.MergeRequest == nil:
		is := s.Issue
		n := &noteable{iid: is.IID, title: is.Title, desc: is.Description, state: is.State, url: is.WebURL,
			labels: is.Labels, created: is.CreatedAt, updated: is.UpdatedAt, closed: is.ClosedAt,
			kind: entity.KindWorkItem, openCategory: entity.StatusTodo}
		if a := is.Author; a != nil {
			n.author = &gitlab.BasicUser{ID: a.ID, Username: a.Username}
		}
		for _, a := range is.Assignees {
			if a != nil {
				n.assignees = append(n.assignees, a.Username)
			}
		}
		return n, nil
	}
	return nil, errors.New("the snapshot must hold exactly one issue or merge request")
}

// status maps GitLab's state to the entity's status and category: opened
// (and locked, a merge request being merged) is open, closed and merged
// are done.
func (n *noteable) status() (string, string) {
	switch n.state {
	case "opened", "locked":
		return "open", n.openCategory
	case "closed", "merged":
		return n.state, entity.StatusDone
	case "":
		return "unknown", n.openCategory
	}
	return event.Truncate(n.state, 255), n.openCategory
}

// skeleton builds the entity without its activity, version or actors.
func skeleton(ref entity.Ref, n *noteable) (*entity.Entity, error) {
	if n.author == nil || n.author.ID == 0 || n.author.Username == "" {
		return nil, fmt.Errorf("%s %d has no author", n.kind, n.iid)
	}
	if n.created == nil {
		return nil, fmt.Errorf("%s %d has no created_at", n.kind, n.iid)
	}
	e := &entity.Entity{Source: entity.Source{System: entity.SystemGitLab}, Kind: n.kind, ID: n.iid, URL: n.url,
		Repo: ref.Repo, Activity: []entity.Element{}}
	st := &e.State
	st.Title = event.Truncate(n.title, entity.MaxTitle)
	st.Status, st.StatusCategory = n.status()
	st.Labels, st.LabelsTruncated = event.StateLabels(n.labels)
	st.Assignees = []string{}
	for _, a := range n.assignees {
		if a = event.Truncate(a, event.MaxID); a != "" && len(st.Assignees) < entity.MaxAssignees {
			st.Assignees = append(st.Assignees, a)
		}
	}
	st.Author = event.Truncate(n.author.Username, event.MaxID)
	st.Created, st.Updated = n.created.UTC(), n.created.UTC()
	if n.updated != nil && !n.updated.IsZero() {
		st.Updated = n.updated.UTC()
	}
	if n.closed != nil && !n.closed.IsZero() {
		st.Closed = n.closed.UTC()
	}
	if n.kind == entity.KindChangeProposal {
		if n.merged != nil && !n.merged.IsZero() {
			st.Merged = n.merged.UTC()
		}
		st.ChangeProposal = n.change
	}
	return e, nil
}

// elements lists the action-indicating elements of s: the description
// (body, by the author), every note that is not a system note (comment)
// and every label event that adds a label (label). System notes are
// GitLab's own records of actions ("added 1 commit", "assigned to
// @alice"), written in the acting user's name: they are not what a person
// wrote, and the actions they record that can ask for a run (label
// applications) are listed from the label events instead.
func elements(n *noteable, s *Snapshot) ([]raw, error) {
	var out []raw
	if n.desc != "" {
		out = append(out, raw{entity.TextElement(entity.ElementBody, strconv.FormatInt(n.iid, 10), n.created.UTC(),
			event.Actor{ID: n.author.Username}, n.desc), n.author.ID})
	}
	for _, no := range s.Notes {
		if no == nil || no.System {
			continue
		}
		if no.CreatedAt == nil || no.Author.ID == 0 {
			return nil, fmt.Errorf("note %d has no author or created_at", no.ID)
		}
		el := entity.TextElement(entity.ElementComment, strconv.FormatInt(no.ID, 10), no.CreatedAt.UTC(),
			event.Actor{ID: no.Author.Username}, no.Body)
		out = append(out, raw{el, no.Author.ID})
	}
	for _, le := range s.LabelEvents {
		if le == nil || le.Action != "add" {
			continue
		}
		name := event.Truncate(le.Label.Name, event.MaxLabel)
		if name == "" { // the label was deleted since: nothing to name
			continue
		}
		if le.CreatedAt == nil || le.User.ID == 0 {
			return nil, fmt.Errorf("label event %d has no user or created_at", le.ID)
		}
		out = append(out, raw{entity.Element{Kind: entity.ElementLabel, ID: strconv.FormatInt(le.ID, 10),
			Created: le.CreatedAt.UTC(), Actor: event.Actor{ID: le.User.Username}, Label: name}, le.User.ID})
	}
	return dedupe(out), nil
}

// dedupe drops repeated elements (a listing read across pages that moved).
func dedupe(in []raw) []raw {
	seen := make(map[[2]string]bool, len(in))
	out := in[:0]
	for _, r := range in {
		k := [2]string{r.el.Kind, r.el.ID}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// bound applies the snapshot's cut, then entity.Bound; it returns the
// kept elements with their users, and whether any were cut.
func bound(rs []raw, cut time.Time) (kept []raw, truncated bool) {
	after := afterCut(rs, cut)
	bounded, cutMore := entity.Bound(elementsOf(after))
	return withUsers(bounded, after), !cut.IsZero() || cutMore
}

// afterCut is the elements after the snapshot's cut (all of them when it
// is zero).
func afterCut(rs []raw, cut time.Time) []raw {
	var out []raw
	for _, r := range rs {
		if cut.IsZero() || r.el.Created.After(cut) {
			out = append(out, r)
		}
	}
	return out
}

// others is the elements of rs the version covers besides the tool's own
// (own, by username): the newest entity.MaxActivity of the others
// (entity.ComputeVersion), with their users.
func others(rs []raw, own func(string) bool) []raw {
	var els []entity.Element
	for _, r := range rs {
		if own == nil || !own(r.el.Actor.ID) {
			els = append(els, r.el)
		}
	}
	bounded, _ := entity.Bound(els)
	return withUsers(bounded, rs)
}

func elementsOf(rs []raw) []entity.Element {
	els := make([]entity.Element, len(rs))
	for i, r := range rs {
		els[i] = r.el
	}
	return els
}

// withUsers pairs each element of els with its user in rs.
func withUsers(els []entity.Element, rs []raw) []raw {
	users := make(map[[2]string]int64, len(rs))
	for _, r := range rs {
		users[[2]string{r.el.Kind, r.el.ID}] = r.user
	}
	out := make([]raw, len(els))
	for i, el := range els {
		out[i] = raw{el, users[[2]string{el.Kind, el.ID}]}
	}
	return out
}
