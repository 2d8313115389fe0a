package jirasim

import (
	"encoding/json"
	"io"
	"net/http"
)

// maxCommentBody bounds a posted comment's request body.
const maxCommentBody = 1 << 20

// handleAddComment is POST /rest/api/3/issue/{issueIdOrKey}/comment: the
// comment (an ADF document in "body") is added as the token's account
// (/myself), and answered 201 with the comment, as Jira does.
func (s *Server) handleAddComment(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxCommentBody+1))
	var in struct {
		Body json.RawMessage `json:"body"`
	}
	if err != nil || len(raw) > maxCommentBody || json.Unmarshal(raw, &in) != nil {
		writeError(w, http.StatusBadRequest, "Invalid request payload. Refer to the REST API documentation and try again.")
		return
	}
	var doc struct {
		Type string `json:"type"`
	}
	if len(in.Body) == 0 || json.Unmarshal(in.Body, &doc) != nil || doc.Type != "doc" {
		writeError(w, http.StatusBadRequest, "Comment body is not valid!")
		return
	}
	s.withIssue(w, r, func(base string, is *issue) {
		now := s.now()
		c := &comment{id: s.newID(), author: s.myself, updateAuthor: s.myself, body: in.Body, created: now, updated: now}
		is.comments = append(is.comments, c)
		s.touch(is, true)
		writeJSON(w, http.StatusCreated, s.commentJSON(base, is, c))
	})
}
