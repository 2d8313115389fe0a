package gitlabsim

// POST /projects/:id/{issues|merge_requests}/:iid/notes: a note by the
// token's user (SetTokenUser), 201 with the note; like any note it moves
// the noteable's updated_at. No webhook body is produced: the note was
// written through the API by the tool itself.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// parseCreateNote maps {issues|merge_requests}/:iid/notes (POST) onto rt.
func parseCreateNote(s []string, rt *route) bool {
	kind := map[string]string{"issues": NoteableIssue, "merge_requests": NoteableMergeRequest}[s[0]]
	iid, err := strconv.ParseInt(s[1], 10, 64)
	if kind == "" || err != nil || iid < 1 {
		return false
	}
	rt.work = workRoute{noteable: kind, iid: iid}
	rt.endpoint = map[string]string{NoteableIssue: "create_issue_note", NoteableMergeRequest: "create_merge_request_note"}[kind]
	return true
}

// createNote serves the note creation endpoints. Requires s.mu.
func (s *Server) createNote(w http.ResponseWriter, body []byte, rt route, proj *Project) {
	var in struct {
		Body string `json:"body"`
	}
	if json.Unmarshal(body, &in) != nil || in.Body == "" {
		if q, err := url.ParseQuery(string(body)); err == nil {
			in.Body = q.Get("body")
		}
	}
	if strings.TrimSpace(in.Body) == "" {
		writeErr(w, http.StatusBadRequest, "body is missing")
		return
	}
	is, m, err := s.entityOf(proj, rt.work.noteable, rt.work.iid)
	if err != nil {
		writeMsg(w, http.StatusNotFound, "404 Not found")
		return
	}
	now := s.st.now()
	n := &Note{ID: s.wk.next(), ProjectID: proj.ID, NoteableType: rt.work.noteable, NoteableIID: rt.work.iid,
		AuthorID: s.wk.tokenUser, Body: in.Body, CreatedAt: now, UpdatedAt: now}
	if is != nil {
		n.NoteableID, is.UpdatedAt = is.ID, now
	} else {
		n.NoteableID, m.UpdatedAt = m.ID, now
	}
	s.wk.notes = append(s.wk.notes, n)
	writeJSON(w, http.StatusCreated, s.noteJSON(n))
}
