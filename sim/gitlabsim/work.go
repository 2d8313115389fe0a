package gitlabsim

import (
	"fmt"
	"slices"
	"time"
)

// WebBase is the web address of the emulated instance: web_url and url
// fields of issues, merge requests, notes and webhook bodies start with it,
// whatever port the API listens on, so their bodies are stable.
const WebBase = "https://gitlab.example.com"

// Access levels of project members, as the members API reports them.
const (
	AccessMinimal    = 5
	AccessGuest      = 10
	AccessPlanner    = 15
	AccessReporter   = 20
	AccessDeveloper  = 30
	AccessMaintainer = 40
	AccessOwner      = 50
)

// Noteable types, as notes and webhooks spell them.
const (
	NoteableIssue        = "Issue"
	NoteableMergeRequest = "MergeRequest"
)

// User is an emulated account; Bot marks project or group access token
// users and service accounts (the users API's `bot` field).
type User struct {
	ID       int64
	Username string
	Name     string
	Bot      bool
}

// Issue is a snapshot of one emulated issue.
type Issue struct {
	ID, IID, ProjectID   int64
	Title, Description   string
	State                string // opened | closed
	AuthorID, ClosedBy   int64
	Labels               []string
	CreatedAt, UpdatedAt time.Time
	Assignees            []int64   // user ids (SetAssignees)
	ClosedAt             time.Time // zero while open
}

// MergeRequest is a snapshot of one emulated merge request. ProjectID is
// the target project; a SourceProjectID that differs is a fork.
type MergeRequest struct {
	ID, IID, ProjectID, SourceProjectID int64
	SourceBranch, TargetBranch, SHA     string
	Title, Description                  string
	State                               string // opened | closed | merged
	Draft                               bool
	AuthorID, ClosedBy, MergedBy        int64
	Labels                              []string
	CreatedAt, UpdatedAt                time.Time
	Assignees                           []int64   // user ids (SetAssignees)
	ClosedAt, MergedAt                  time.Time // zero until closed, merged
}

// Note is a snapshot of one comment on an issue or a merge request.
type Note struct {
	ID, ProjectID int64
	NoteableType  string // Issue | MergeRequest
	NoteableID    int64  // global id of the issue or merge request
	NoteableIID   int64
	AuthorID      int64
	Body          string
	System        bool
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// LabelEvent is one resource label event (a label added or removed).
type LabelEvent struct {
	ID           int64
	UserID       int64
	ResourceType string // Issue | MergeRequest
	ResourceID   int64  // global id
	Label        string
	Action       string // add | remove
	CreatedAt    time.Time
}

// StateEvent is one resource state event (closed, reopened, merged).
type StateEvent struct {
	ID           int64
	UserID       int64
	ResourceType string // Issue | MergeRequest
	ResourceID   int64  // global id
	State        string // closed | reopened | merged
	CreatedAt    time.Time
}

// work holds issues, merge requests, notes, members and users; every
// method requires Server.mu held. Maps are created on first use.
type work struct {
	seq         int64 // one id sequence for every object of the work model
	users       map[int64]*User
	members     map[[2]int64]int // project, user -> access level
	issues      []*Issue
	mrs         []*MergeRequest
	notes       []*Note
	labelEvents []*LabelEvent
	stateEvents []*StateEvent
	iids        map[[2]int64]int64 // project, 0 issue / 1 MR -> last iid
	labelIDs    map[string]int64
	tokenUser   int64 // the user GET /user answers with (SetTokenUser)
}

func (w *work) next() int64 {
	if w.users == nil {
		w.users, w.members, w.iids, w.labelIDs = map[int64]*User{}, map[[2]int64]int{}, map[[2]int64]int64{}, map[string]int64{}
	}
	w.seq++
	return w.seq
}

func (w *work) issue(project, iid int64) *Issue {
	for _, is := range w.issues {
		if is.ProjectID == project && is.IID == iid {
			return is
		}
	}
	return nil
}

func (w *work) mr(project, iid int64) *MergeRequest {
	for _, m := range w.mrs {
		if m.ProjectID == project && m.IID == iid {
			return m
		}
	}
	return nil
}

func (w *work) note(project int64, noteable string, iid, id int64) *Note {
	for _, n := range w.notes {
		if n.ID == id && n.ProjectID == project && n.NoteableType == noteable && n.NoteableIID == iid {
			return n
		}
	}
	return nil
}

// applyLabels adds and removes labels on cur, recording one label event per
// actual change; it returns the new set and whether anything changed.
func (w *work) applyLabels(cur []string, add, remove []string, user int64, typ string, id int64, now time.Time) []string {
	out := slices.Clone(cur)
	for _, l := range remove {
		if i := slices.Index(out, l); i >= 0 {
			out = slices.Delete(out, i, i+1)
			w.labelEvents = append(w.labelEvents, &LabelEvent{ID: w.next(), UserID: user, ResourceType: typ, ResourceID: id, Label: l, Action: "remove", CreatedAt: now})
		}
	}
	for _, l := range add {
		if !slices.Contains(out, l) {
			out = append(out, l)
			w.labelEvents = append(w.labelEvents, &LabelEvent{ID: w.next(), UserID: user, ResourceType: typ, ResourceID: id, Label: l, Action: "add", CreatedAt: now})
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// AddUser creates an account and returns it; bot marks an access token
// user (project_…_bot_… usernames are what GitLab gives those).
func (s *Server) AddUser(username string, bot bool) User {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := &User{ID: s.wk.next(), Username: username, Name: username, Bot: bot}
	s.wk.users[u.ID] = u
	return *u
}

// SetMember makes user a member of project with access level; level 0
// removes the membership.
func (s *Server) SetMember(project string, userID int64, level int) error {
	return s.inWork(project, func(p *Project) error {
		k := [2]int64{p.ID, userID}
		if level == 0 {
			delete(s.wk.members, k)
			return nil
		}
		s.wk.members[k] = level
		return nil
	})
}

// inWork runs fn with the server locked on the project named path (or id).
func (s *Server) inWork(path string, fn func(p *Project) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wk.next() // make sure the maps exist
	p := s.st.byPath[path]
	if p == nil {
		return fmt.Errorf("gitlabsim: no project %q", path)
	}
	return fn(p)
}

// SetNoteBody changes a note's body as an edit would (without a webhook).
func (s *Server) SetNoteBody(noteID int64, body string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.wk.notes {
		if n.ID == noteID {
			n.Body, n.UpdatedAt = body, s.st.now()
			return nil
		}
	}
	return fmt.Errorf("gitlabsim: no note %d", noteID)
}
