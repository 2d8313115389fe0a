package githubsim

// Reactions on issue comments and on issues and pull requests
// (GET and POST /repos/{o}/{r}/issues/comments/{comment_id}/reactions and
// /repos/{o}/{r}/issues/{number}/reactions): created by the token's own
// account (Options.Login), 201 for a new reaction and 200 with the
// existing one when that account already reacted so, as GitHub documents.
// A reaction changes neither the issue's nor the comment's updated_at.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Endpoints of the reactions routes.
const (
	EndpointCommentReactions   = "comment_reactions"    // GET /repos/{o}/{r}/issues/comments/{id}/reactions
	EndpointAddCommentReaction = "add_comment_reaction" // POST /repos/{o}/{r}/issues/comments/{id}/reactions
	EndpointIssueReactions     = "issue_reactions"      // GET /repos/{o}/{r}/issues/{n}/reactions
	EndpointAddIssueReaction   = "add_issue_reaction"   // POST /repos/{o}/{r}/issues/{n}/reactions
)

// reactionContents are the reactions GitHub accepts.
var reactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

// Reaction is one reaction, as Reactions returns it.
type Reaction struct {
	ID        int64
	User      string
	Content   string
	CreatedAt time.Time
}

// reactionStore holds the reactions by subject ("repo comment id" or
// "repo issue number"); the caller holds s.mu.
type reactionStore map[string][]*Reaction

func commentSubject(repo string, id int64) string { return fmt.Sprintf("%s comment %d", repo, id) }
func issueSubject(repo string, n int) string      { return fmt.Sprintf("%s issue %d", repo, n) }

// CommentReactions returns the reactions on comment id of repo (copies).
func (s *Server) CommentReactions(repo string, id int64) []Reaction {
	return s.reactionsOf(commentSubject(repo, id))
}

// IssueReactions returns the reactions on issue or pull request n (copies).
func (s *Server) IssueReactions(repo string, n int) []Reaction {
	return s.reactionsOf(issueSubject(repo, n))
}

func (s *Server) reactionsOf(subject string) []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Reaction
	for _, r := range s.reactions[subject] {
		out = append(out, *r)
	}
	return out
}

func (v view) reaction(r *Reaction) map[string]any {
	return map[string]any{"id": r.ID, "node_id": "REA_" + strconv.FormatInt(r.ID, 10), "user": v.user(r.User),
		"content": r.Content, "created_at": ts(r.CreatedAt)}
}

// withReactable runs f with the subject the path names (a comment of the
// repository, or an issue or pull request), or answers 404.
func (s *Server) withReactable(w http.ResponseWriter, r *http.Request, f func(v view, subject string)) {
	if id := r.PathValue("comment_id"); id != "" {
		s.withView(w, r, func(v view) {
			n, err := strconv.ParseInt(id, 10, 64)
			if err != nil || !slices.ContainsFunc(v.st.comments, func(c *comment) bool { return c.ID == n }) {
				notFound(w)
				return
			}
			f(v, commentSubject(v.repo, n))
		})
		return
	}
	s.withIssue(w, r, func(v view, is *issue) { f(v, issueSubject(v.repo, is.Number)) })
}

func (s *Server) handleReactions(w http.ResponseWriter, r *http.Request) {
	s.withReactable(w, r, func(v view, subject string) {
		want := r.URL.Query().Get("content")
		var list []*Reaction
		for _, x := range s.reactions[subject] {
			if want == "" || x.Content == want {
				list = append(list, x)
			}
		}
		writeList(w, r, list, v.reaction)
	})
}

func (s *Server) handleAddReaction(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	var body struct {
		Content string `json:"content"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err != nil || dec.Decode(&body) != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	if !slices.Contains(reactionContents, body.Content) {
		writeValidation(w, "Reaction", "content", "invalid")
		return
	}
	s.withReactable(w, r, func(v view, subject string) {
		login := s.opts.Login
		for _, x := range s.reactions[subject] {
			if x.User == login && x.Content == body.Content {
				writeJSON(w, http.StatusOK, v.reaction(x))
				return
			}
		}
		x := &Reaction{ID: s.newID(), User: login, Content: body.Content, CreatedAt: s.stamp()}
		if s.reactions == nil {
			s.reactions = reactionStore{}
		}
		s.reactions[subject] = append(s.reactions[subject], x)
		writeJSON(w, http.StatusCreated, v.reaction(x))
	})
}

// writeValidation is GitHub's 422 "Validation Failed" with one error.
func writeValidation(w http.ResponseWriter, resource, field, code string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
		"errors":            []map[string]any{{"resource": resource, "field": field, "code": code}},
		"documentation_url": "https://docs.github.com/rest/reactions/reactions"})
}

// IssueUpdatedAtForTest is issue n's updated_at (zero when absent).
func (s *Server) IssueUpdatedAtForTest(repo string, n int) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.repos[repo]; st != nil && st.issues[n] != nil {
		return st.issues[n].UpdatedAt
	}
	return time.Time{}
}
