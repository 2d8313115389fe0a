package gitlabsim

// Notes returns the notes of project's issue or merge request iid
// (noteable: NoteableIssue or NoteableMergeRequest), oldest first
// (copies).
func (s *Server) Notes(project, noteable string, iid int64) []Note {
	var out []Note
	_ = s.inWork(project, func(p *Project) error {
		for _, n := range s.wk.notes {
			if n.ProjectID == p.ID && n.NoteableType == noteable && n.NoteableIID == iid {
				out = append(out, *n)
			}
		}
		return nil
	})
	return out
}
