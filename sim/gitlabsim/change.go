package gitlabsim

import (
	"fmt"
	"time"
)

// MergeRequestSpec describes a merge request to open. SourceProject is
// the source project's path; empty means the target project (no fork).
type MergeRequestSpec struct {
	SourceProject              string
	SourceBranch, TargetBranch string
	SHA                        string // head commit; default a stable fake sha
	Title, Description         string
	AuthorID                   int64
	Labels                     []string
	Draft                      bool
}

// Every change below updates the model as GitLab would and returns the
// body of the webhook GitLab sends for it (GitLab's documented shapes of
// issue, merge request and note events).

// CreateIssue opens an issue and returns it with its "open" issue event.
func (s *Server) CreateIssue(project string, authorID int64, title, description string, labels []string) (Issue, []byte, error) {
	var out Issue
	var body []byte
	err := s.inWork(project, func(p *Project) error {
		w, now := &s.wk, s.st.now()
		k := [2]int64{p.ID, 0}
		w.iids[k]++
		is := &Issue{ID: w.next(), IID: w.iids[k], ProjectID: p.ID, Title: title, Description: description,
			State: "opened", AuthorID: authorID, Labels: w.applyLabels(nil, labels, nil, authorID, NoteableIssue, 0, now),
			CreatedAt: now, UpdatedAt: now}
		w.fixLabelEvents(is.ID)
		w.issues = append(w.issues, is)
		out, body = *is, s.issueHook(p, is, authorID, "open", nil)
		return nil
	})
	return out, body, err
}

// CreateMergeRequest opens a merge request and returns it with its "open"
// merge request event.
func (s *Server) CreateMergeRequest(project string, spec MergeRequestSpec) (MergeRequest, []byte, error) {
	var out MergeRequest
	var body []byte
	err := s.inWork(project, func(p *Project) error {
		src := p
		if spec.SourceProject != "" {
			if src = s.st.byPath[spec.SourceProject]; src == nil {
				return fmt.Errorf("gitlabsim: no source project %q", spec.SourceProject)
			}
		}
		w, now := &s.wk, s.st.now()
		k := [2]int64{p.ID, 1}
		w.iids[k]++
		m := &MergeRequest{ID: w.next(), IID: w.iids[k], ProjectID: p.ID, SourceProjectID: src.ID,
			SourceBranch: spec.SourceBranch, TargetBranch: spec.TargetBranch, SHA: spec.SHA, Title: spec.Title,
			Description: spec.Description, State: "opened", Draft: spec.Draft, AuthorID: spec.AuthorID,
			CreatedAt: now, UpdatedAt: now}
		if m.SHA == "" {
			m.SHA = fakeSHA(0x5a0000 + m.ID)
		}
		m.Labels = w.applyLabels(nil, spec.Labels, nil, spec.AuthorID, NoteableMergeRequest, 0, now)
		w.fixLabelEvents(m.ID)
		w.mrs = append(w.mrs, m)
		out, body = *m, s.mergeHook(p, m, spec.AuthorID, "open", nil)
		return nil
	})
	return out, body, err
}

// fixLabelEvents gives the label events recorded before id existed (those
// with resource id 0) the resource id.
func (w *work) fixLabelEvents(id int64) {
	for _, e := range w.labelEvents {
		if e.ResourceID == 0 {
			e.ResourceID = id
		}
	}
}

// entityOf finds the issue or merge request iid of p; exactly one result
// is non-nil unless the error is set. Requires s.mu.
func (s *Server) entityOf(p *Project, noteable string, iid int64) (*Issue, *MergeRequest, error) {
	switch noteable {
	case NoteableIssue:
		if is := s.wk.issue(p.ID, iid); is != nil {
			return is, nil, nil
		}
		return nil, nil, fmt.Errorf("gitlabsim: no issue %d in %s", iid, p.Path)
	case NoteableMergeRequest:
		if m := s.wk.mr(p.ID, iid); m != nil {
			return nil, m, nil
		}
		return nil, nil, fmt.Errorf("gitlabsim: no merge request %d in %s", iid, p.Path)
	}
	return nil, nil, fmt.Errorf("gitlabsim: noteable type %q: want Issue or MergeRequest", noteable)
}

// AddNote adds a comment by authorID to the issue or merge request iid
// (noteable: NoteableIssue or NoteableMergeRequest) and returns it with
// its note event.
func (s *Server) AddNote(project, noteable string, iid, authorID int64, body string) (Note, []byte, error) {
	var out Note
	var hook []byte
	err := s.inWork(project, func(p *Project) error {
		is, m, err := s.entityOf(p, noteable, iid)
		if err != nil {
			return err
		}
		now := s.st.now()
		n := &Note{ID: s.wk.next(), ProjectID: p.ID, NoteableType: noteable, NoteableIID: iid, AuthorID: authorID,
			Body: body, CreatedAt: now, UpdatedAt: now}
		// GitLab touches the noteable: its updated_at moves to the note's.
		if is != nil {
			n.NoteableID, is.UpdatedAt = is.ID, now
		} else {
			n.NoteableID, m.UpdatedAt = m.ID, now
		}
		s.wk.notes = append(s.wk.notes, n)
		out, hook = *n, s.noteHook(p, n)
		return nil
	})
	return out, hook, err
}

// ChangeLabels adds and removes labels on the issue or merge request iid
// as actorID and returns the "update" event carrying changes.labels.
func (s *Server) ChangeLabels(project, noteable string, iid, actorID int64, add, remove []string) ([]byte, error) {
	return s.update(project, noteable, iid, actorID, func(labels *[]string, _ *string, id int64) map[string]any {
		prev := *labels
		*labels = s.wk.applyLabels(prev, add, remove, actorID, noteable, id, s.st.now())
		return map[string]any{"labels": map[string]any{"previous": s.wk.labelsJSON(prev), "current": s.wk.labelsJSON(*labels)}}
	})
}

// Edit changes the title of the issue or merge request iid as actorID and
// returns the "update" event carrying changes.title.
func (s *Server) Edit(project, noteable string, iid, actorID int64, newTitle string) ([]byte, error) {
	return s.update(project, noteable, iid, actorID, func(_ *[]string, title *string, _ int64) map[string]any {
		prev := *title
		*title = newTitle
		return map[string]any{"title": map[string]any{"previous": prev, "current": newTitle}}
	})
}

// update lets change edit the labels or title of the issue or merge
// request iid and returns its "update" event with the changes change
// reports.
func (s *Server) update(project, noteable string, iid, actorID int64, change func(labels *[]string, title *string, id int64) map[string]any) ([]byte, error) {
	var hook []byte
	err := s.inWork(project, func(p *Project) error {
		is, m, err := s.entityOf(p, noteable, iid)
		if err != nil {
			return err
		}
		if is != nil {
			ch := change(&is.Labels, &is.Title, is.ID)
			is.UpdatedAt = s.st.now()
			hook = s.issueHook(p, is, actorID, "update", ch)
			return nil
		}
		ch := change(&m.Labels, &m.Title, m.ID)
		m.UpdatedAt = s.st.now()
		hook = s.mergeHook(p, m, actorID, "update", ch)
		return nil
	})
	return hook, err
}

// SetState closes, reopens (issues and merge requests) or merges (merge
// requests) iid as actorID; action is close, reopen or merge. It returns
// the event GitLab sends (action close, reopen or merge).
func (s *Server) SetState(project, noteable string, iid, actorID int64, action string) ([]byte, error) {
	state := map[string]string{"close": "closed", "reopen": "opened", "merge": "merged"}[action]
	if state == "" || (action == "merge" && noteable != NoteableMergeRequest) {
		return nil, fmt.Errorf("gitlabsim: action %q on %s: want close, reopen or merge (merge requests only)", action, noteable)
	}
	by := func(want string) int64 { return map[bool]int64{true: actorID}[state == want] }
	var hook []byte
	err := s.inWork(project, func(p *Project) error {
		is, m, err := s.entityOf(p, noteable, iid)
		if err != nil {
			return err
		}
		now := s.st.now()
		se := &StateEvent{ID: s.wk.next(), UserID: actorID, ResourceType: noteable,
			State: map[string]string{"close": "closed", "reopen": "reopened", "merge": "merged"}[action], CreatedAt: now}
		s.wk.stateEvents = append(s.wk.stateEvents, se)
		if is != nil {
			se.ResourceID = is.ID
			is.State, is.UpdatedAt, is.ClosedBy = state, now, by("closed")
			is.ClosedAt = map[bool]time.Time{true: now}[state == "closed"]
			hook = s.issueHook(p, is, actorID, action, nil)
			return nil
		}
		se.ResourceID = m.ID
		m.State, m.UpdatedAt, m.ClosedBy, m.MergedBy = state, now, by("closed"), by("merged")
		m.ClosedAt, m.MergedAt = map[bool]time.Time{true: now}[state == "closed"], map[bool]time.Time{true: now}[state == "merged"]
		hook = s.mergeHook(p, m, actorID, action, nil)
		return nil
	})
	return hook, err
}

// Push moves merge request iid's source branch to sha (new commits) as
// actorID and returns the "update" event carrying oldrev.
func (s *Server) Push(project string, iid, actorID int64, sha string) ([]byte, error) {
	var hook []byte
	err := s.inWork(project, func(p *Project) error {
		_, m, err := s.entityOf(p, NoteableMergeRequest, iid)
		if err != nil {
			return err
		}
		old := m.SHA
		m.SHA, m.UpdatedAt = sha, s.st.now()
		hook = s.mergeHook(p, m, actorID, "update", map[string]any{}, "oldrev", old)
		return nil
	})
	return hook, err
}

// labelID is a stable id per label title.
func (w *work) labelID(title string) int64 {
	if id, ok := w.labelIDs[title]; ok {
		return id
	}
	id := int64(100 + len(w.labelIDs))
	w.labelIDs[title] = id
	return id
}

// labelsJSON renders labels as webhook label objects.
func (w *work) labelsJSON(labels []string) []map[string]any {
	out := []map[string]any{}
	for _, l := range labels {
		out = append(out, map[string]any{"id": w.labelID(l), "title": l, "color": "#428BCA", "project_id": nil,
			"created_at": "2026-01-01 00:00:00 UTC", "updated_at": "2026-01-01 00:00:00 UTC", "template": false,
			"description": "", "type": "GroupLabel", "group_id": 1})
	}
	return out
}
