package jirasim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AddComment adds a comment whose text becomes ADF paragraphs (one per
// line) and returns its id. It updates the issue's updated time.
func (s *Server) AddComment(key, authorAccountID, text string) string {
	return s.AddCommentADF(key, authorAccountID, textADF(text))
}

// AddCommentADF adds a comment with an ADF body as given.
func (s *Server) AddCommentADF(key, authorAccountID string, body json.RawMessage) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	s.user(authorAccountID)
	now := s.now()
	c := &comment{id: s.newID(), author: authorAccountID, updateAuthor: authorAccountID, body: body, created: now, updated: now}
	is.comments = append(is.comments, c)
	s.touch(is, true)
	return strconv.FormatInt(c.id, 10)
}

// EditComment replaces a comment's text, setting its updated time.
func (s *Server) EditComment(key, commentID, authorAccountID, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	for _, c := range is.comments {
		if strconv.FormatInt(c.id, 10) == commentID {
			c.body = textADF(text)
			c.updateAuthor = authorAccountID
			c.updated = s.now()
			s.user(authorAccountID)
			s.touch(is, true)
			return
		}
	}
	panic(fmt.Sprintf("jirasim: no comment %s on %s", commentID, key))
}

// record appends a changelog history and bumps updated.
func (s *Server) record(is *issue, author string, items ...changeItem) {
	s.user(author)
	is.histories = append(is.histories, &history{id: s.newID(), author: author, created: s.now(), items: items})
	s.touch(is, true)
}

// AddLabel adds a label (no-op if present), recording a labels change.
func (s *Server) AddLabel(key, label, author string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	if slices.Contains(is.cur.labels, label) {
		return
	}
	s.setLabels(is, author, append(slices.Clone(is.cur.labels), label))
}

// RemoveLabel removes a label (no-op if absent), recording a labels change.
func (s *Server) RemoveLabel(key, label, author string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	i := slices.Index(is.cur.labels, label)
	if i < 0 {
		return
	}
	s.setLabels(is, author, slices.Delete(slices.Clone(is.cur.labels), i, i+1))
}

// SetLabels replaces the issue's labels in one edit, recording one labels
// change (a bulk edit adding or removing many labels at once).
func (s *Server) SetLabels(key string, labels []string, author string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setLabels(s.mustIssue(key), author, slices.Clone(labels))
}

// setLabels replaces the issue's labels, recording a labels change; s.mu
// must be held.
func (s *Server) setLabels(is *issue, author string, labels []string) {
	from := strings.Join(is.cur.labels, " ")
	is.cur.labels = labels
	s.record(is, author, changeItem{field: "labels", fieldID: "labels", fieldType: "jira",
		fromString: from, toString: strings.Join(labels, " ")})
}

// SetStatus transitions the issue to a known status.
func (s *Server) SetStatus(key, statusName, author string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	st := s.status(statusName)
	if st == nil {
		panic(fmt.Sprintf("jirasim: unknown status %q", statusName))
	}
	old := is.cur.status
	is.cur.status = st
	switch {
	case st.category == "done" && old.category != "done":
		is.cur.resolved = s.now()
	case st.category != "done":
		is.cur.resolved = time.Time{}
	}
	s.record(is, author, changeItem{field: "status", fieldID: "status", fieldType: "jira",
		from: old.id, fromString: old.name, to: st.id, toString: st.name})
}

// SetSummary changes the summary.
func (s *Server) SetSummary(key, summary, author string) {
	s.setText(key, "summary", summary, author, func(is *issue) *string { return &is.cur.summary })
}

// SetDescription changes the description (plain text, served as ADF).
func (s *Server) SetDescription(key, text, author string) {
	s.setText(key, "description", text, author, func(is *issue) *string { return &is.cur.description })
}

// setText replaces the text field that value points to, recording the
// change under field.
func (s *Server) setText(key, field, text, author string, value func(*issue) *string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	dst := value(is)
	old := *dst
	*dst = text
	s.record(is, author, changeItem{field: field, fieldID: field, fieldType: "jira", fromString: old, toString: text})
}

// SetField sets another field (e.g. customfield_10010) to a string value.
func (s *Server) SetField(key, field, value, author string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	old := is.cur.fields[field]
	is.cur.fields[field] = value
	ftype := "jira"
	if strings.HasPrefix(field, "customfield_") {
		ftype = "custom"
	}
	s.record(is, author, changeItem{field: field, fieldID: field, fieldType: ftype, fromString: old, toString: value})
}

// Property reads an issue property as stored (strongly consistent).
func (s *Server) Property(key, prop string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.issues[key]
	if !ok || is.cur.deleted {
		return nil, false
	}
	v, ok := is.cur.props[prop]
	return slices.Clone(v), ok
}

// SetPropertyDirect writes (or, with a nil value, deletes) an issue
// property without an HTTP call, as another poller would.
func (s *Server) SetPropertyDirect(key, prop string, value json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	if value == nil {
		delete(is.cur.props, prop)
	} else {
		is.cur.props[prop] = slices.Clone(value)
	}
	s.touch(is, false)
}
