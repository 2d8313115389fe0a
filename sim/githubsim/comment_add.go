package githubsim

// POST /repos/{o}/{r}/issues/{number}/comments: a comment by the token's
// own account (Options.Login), 201 with the comment; like any comment it
// moves the issue's updated_at.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// EndpointAddComment is POST /repos/{o}/{r}/issues/{n}/comments.
const EndpointAddComment = "add_issue_comment"

func (s *Server) handleAddComment(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	var body struct {
		Body *string `json:"body"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err != nil || dec.Decode(&body) != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	if body.Body == nil || strings.TrimSpace(*body.Body) == "" {
		writeValidation(w, "IssueComment", "body", "missing_field")
		return
	}
	s.withIssue(w, r, func(v view, is *issue) {
		now := s.stamp()
		c := &comment{ID: s.newID(), Number: is.Number, Author: s.opts.Login, Body: *body.Body, CreatedAt: now, UpdatedAt: now}
		v.st.comments = append(v.st.comments, c)
		is.Comments++
		is.UpdatedAt = now
		writeJSON(w, http.StatusCreated, v.comment(c))
	})
}
