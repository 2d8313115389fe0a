package gitlabevent

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Noteable kinds, as GitLab spells noteable_type.
const (
	NoteableIssue        = "Issue"
	NoteableMergeRequest = "MergeRequest"
)

// Claim is what a webhook body says happened. Nothing in it is trusted:
// Verify checks every field the event is built from against the API.
type Claim struct {
	ObjectKind string // issue | merge_request | note (source.raw_type)
	Action     string // object_attributes.action (source.raw_action)
	ProjectID  int64
	Project    string // project.path_with_namespace
	Noteable   string // Issue | MergeRequest: what the event is about
	IID        int64
	UserID     int64 // user.id: who caused the change
	Username   string
	AuthorID   int64    // author_id of the issue or merge request (issue and merge request events)
	State      string   // object_attributes.state (issue and merge request events)
	Labels     []string // the entity's labels after the change (issue and merge request events)
	Transition string   // transition kind
	// LabelChanges lists each label added or removed (label_changed), added
	// first, each in the order GitLab lists them.
	LabelChanges []event.Label
	SHA          string // last_commit.id (merge request events)
	NoteID       int64  // note events
	NoteBody     string
	NoteAuthorID int64
}

type hookLabel struct {
	Title string `json:"title"`
}

type hookAttrs struct {
	ID           int64               `json:"id"`
	IID          int64               `json:"iid"`
	AuthorID     int64               `json:"author_id"`
	State        string              `json:"state"`
	Action       string              `json:"action"`
	OldRev       string              `json:"oldrev"`
	Labels       []hookLabel         `json:"labels"`
	LastCommit   struct{ ID string } `json:"last_commit"`
	Note         string              `json:"note"`
	NoteableType string              `json:"noteable_type"`
	System       bool                `json:"system"`
}

type hookBody struct {
	ObjectKind string `json:"object_kind"`
	User       struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	} `json:"user"`
	Project struct {
		ID                int64  `json:"id"`
		PathWithNamespace string `json:"path_with_namespace"`
	} `json:"project"`
	ObjectAttributes hookAttrs  `json:"object_attributes"`
	MergeRequest     *hookAttrs `json:"merge_request"`
	Issue            *hookAttrs `json:"issue"`
	Changes          struct {
		Labels *struct {
			Previous []hookLabel `json:"previous"`
			Current  []hookLabel `json:"current"`
		} `json:"labels"`
		Title       json.RawMessage `json:"title"`
		Description json.RawMessage `json:"description"`
		Draft       *struct {
			Previous bool `json:"previous"`
			Current  bool `json:"current"`
		} `json:"draft"`
	} `json:"changes"`
}

// entityActions maps issue and merge request actions to transition kinds;
// "update" is decided from the changes (updateKind).
var entityActions = map[string]string{
	"open": event.Opened, "reopen": event.Reopened, "close": event.Closed, "merge": event.Merged, "update": "",
}

// ParseWebhook reads a GitLab webhook body (issue, merge_request or note
// event) into a Claim. Anything else, or a body that lacks what the
// mapping needs, is an error naming the field.
func ParseWebhook(data []byte) (*Claim, error) {
	var h hookBody
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("payload is not a GitLab webhook body: %v", err)
	}
	a := &h.ObjectAttributes
	c := &Claim{ObjectKind: h.ObjectKind, Action: a.Action, ProjectID: h.Project.ID,
		Project: h.Project.PathWithNamespace, UserID: h.User.ID, Username: h.User.Username}
	if c.ProjectID < 1 || c.Project == "" {
		return nil, errors.New("payload lacks project.id or project.path_with_namespace")
	}
	if c.UserID < 1 || c.Username == "" {
		return nil, errors.New("payload lacks user.id or user.username")
	}
	var err error
	switch h.ObjectKind {
	case "issue", "merge_request":
		err = c.entity(&h)
	case "note":
		err = c.note(&h)
	default:
		return nil, fmt.Errorf("unsupported object_kind %q: gitlab-event handles issue, merge_request and note", h.ObjectKind)
	}
	if err != nil {
		return nil, err
	}
	if c.IID < 1 {
		return nil, fmt.Errorf("%s payload lacks the iid of the issue or merge request", h.ObjectKind)
	}
	return c, nil
}

func (c *Claim) entity(h *hookBody) error {
	a := &h.ObjectAttributes
	c.Noteable = map[string]string{"issue": NoteableIssue, "merge_request": NoteableMergeRequest}[h.ObjectKind]
	c.IID, c.AuthorID, c.State, c.SHA = a.IID, a.AuthorID, a.State, a.LastCommit.ID
	c.Labels = titles(a.Labels)
	kind, ok := entityActions[a.Action]
	if !ok || (kind == event.Merged && c.Noteable != NoteableMergeRequest) {
		return fmt.Errorf("unsupported %s action %q: supported are open, reopen, close, update%s", h.ObjectKind, a.Action,
			map[bool]string{true: ", merge"}[c.Noteable == NoteableMergeRequest])
	}
	if kind == "" {
		kind = c.updateKind(h)
	}
	c.Transition = kind
	return nil
}

// updateKind decides what an "update" was: new commits (oldrev) are
// synchronized, label changes label_changed, draft → ready marked_ready,
// a new title or description edited, anything else updated.
func (c *Claim) updateKind(h *hookBody) string {
	ch := &h.Changes
	if ch.Labels != nil {
		prev, cur := titles(ch.Labels.Previous), titles(ch.Labels.Current)
		for _, l := range cur {
			if !slices.Contains(prev, l) {
				c.LabelChanges = append(c.LabelChanges, event.Label{Name: l, Action: "added"})
			}
		}
		for _, l := range prev {
			if !slices.Contains(cur, l) {
				c.LabelChanges = append(c.LabelChanges, event.Label{Name: l, Action: "removed"})
			}
		}
	}
	switch {
	case c.Noteable == NoteableMergeRequest && h.ObjectAttributes.OldRev != "":
		c.LabelChanges = nil
		return event.Synchronized
	case len(c.LabelChanges) > 0:
		return event.LabelChanged
	case c.Noteable == NoteableMergeRequest && ch.Draft != nil && ch.Draft.Previous && !ch.Draft.Current:
		return event.MarkedReady
	case len(ch.Title) > 0 || len(ch.Description) > 0:
		return event.Edited
	}
	return event.Updated
}

func (c *Claim) note(h *hookBody) error {
	a := &h.ObjectAttributes
	if a.Action != "" && a.Action != "create" {
		return fmt.Errorf("unsupported note action %q: supported is create", a.Action)
	}
	if a.System {
		return errors.New("note payload is a system note")
	}
	var on *hookAttrs
	switch a.NoteableType {
	case NoteableIssue:
		on = h.Issue
	case NoteableMergeRequest:
		on = h.MergeRequest
	default:
		return fmt.Errorf("unsupported noteable_type %q: gitlab-event handles notes on Issue and MergeRequest", a.NoteableType)
	}
	if on == nil {
		return fmt.Errorf("note payload on a %s lacks its %s object", a.NoteableType,
			map[string]string{NoteableIssue: "issue", NoteableMergeRequest: "merge_request"}[a.NoteableType])
	}
	if a.ID < 1 {
		return errors.New("note payload lacks object_attributes.id")
	}
	c.Noteable, c.IID, c.Transition = a.NoteableType, on.IID, event.CommentAdded
	c.NoteID, c.NoteBody, c.NoteAuthorID = a.ID, a.Note, a.AuthorID
	return nil
}

func titles(ls []hookLabel) []string {
	out := []string{}
	for _, l := range ls {
		if l.Title != "" {
			out = append(out, l.Title)
		}
	}
	return out
}
