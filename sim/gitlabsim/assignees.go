package gitlabsim

// What entity resolution reads beyond the webhook path: assignees, and
// the system notes GitLab writes beside people's comments.

// SetAssignees replaces the assignees of the issue or merge request iid
// (noteable: NoteableIssue or NoteableMergeRequest) with the users ids,
// as an edit would (its updated_at moves; no webhook is produced).
func (s *Server) SetAssignees(project, noteable string, iid int64, ids ...int64) error {
	return s.inWork(project, func(p *Project) error {
		is, m, err := s.entityOf(p, noteable, iid)
		if err != nil {
			return err
		}
		now, list := s.st.now(), append([]int64{}, ids...)
		if is != nil {
			is.Assignees, is.UpdatedAt = list, now
			return nil
		}
		m.Assignees, m.UpdatedAt = list, now
		return nil
	})
}

// AddSystemNote adds a system note (GitLab's own record of an action,
// such as "assigned to @alice") by authorID to the issue or merge request
// iid, as GitLab lists it among the notes.
func (s *Server) AddSystemNote(project, noteable string, iid, authorID int64, body string) (Note, error) {
	var out Note
	err := s.inWork(project, func(p *Project) error {
		is, m, err := s.entityOf(p, noteable, iid)
		if err != nil {
			return err
		}
		now := s.st.now()
		n := &Note{ID: s.wk.next(), ProjectID: p.ID, NoteableType: noteable, NoteableIID: iid, AuthorID: authorID,
			Body: body, System: true, CreatedAt: now, UpdatedAt: now}
		if is != nil {
			n.NoteableID = is.ID
		} else {
			n.NoteableID = m.ID
		}
		s.wk.notes = append(s.wk.notes, n)
		out = *n
		return nil
	})
	return out, err
}

// usersJSON renders user ids as the basic user objects of an assignees
// list (never null). Requires s.mu.
func (s *Server) usersJSON(ids []int64) []map[string]any {
	out := []map[string]any{}
	for _, id := range ids {
		if u := s.userJSON(id); u != nil {
			out = append(out, u)
		}
	}
	return out
}
