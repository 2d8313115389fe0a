package githubsim

import "time"

// Comment is an issue or pull request comment as a test reads it back.
type Comment struct {
	ID        int64
	Author    string
	Body      string
	CreatedAt time.Time
}

// Comments returns the comments of issue or pull request n of repo,
// oldest first (copies).
func (s *Server) Comments(repo string, n int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.repos[repo]
	if !ok {
		return nil
	}
	var out []Comment
	for _, c := range st.comments {
		if c.Number == n {
			out = append(out, Comment{ID: c.ID, Author: c.Author, Body: c.Body, CreatedAt: c.CreatedAt})
		}
	}
	return out
}
