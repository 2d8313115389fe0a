package jirasim

import (
	"strconv"
	"time"
)

// Comment is an issue comment as a test reads it back; Body is its ADF
// document as stored (JSON text).
type Comment struct {
	ID      string
	Author  string
	Body    string
	Created time.Time
}

// Comments returns issue key's comments, oldest first (copies).
func (s *Server) Comments(key string) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	out := make([]Comment, 0, len(is.comments))
	for _, c := range is.comments {
		out = append(out, Comment{ID: strconv.FormatInt(c.id, 10), Author: c.author, Body: string(c.body), Created: c.created})
	}
	return out
}
