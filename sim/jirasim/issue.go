package jirasim

import (
	"net/http"
	"slices"
	"strings"
)

// changelogInline is how many changelog entries an issue read returns
// with expand=changelog (the newest, newest first, with the total).
const changelogInline = 100

// handleIssue answers GET /rest/api/3/issue/{issueIdOrKey}: the fields
// asked for (comma-separated, repeatable; default *all), the issue
// properties asked for, and with expand=changelog the newest
// changelogInline changelog entries, newest first ("a list of recent
// updates to an issue, sorted by date, starting from the most recent").
func (s *Server) handleIssue(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	fields := splitList(q["fields"])
	if len(fields) == 0 {
		fields = []string{"*all"}
	}
	props := splitList(q["properties"])
	changelog := slices.Contains(splitList(q["expand"]), "changelog")
	s.withIssue(w, r, func(base string, is *issue) {
		out := s.issueJSON(base, is, is.cur, fields, props, false)
		if changelog {
			n := len(is.histories)
			hs := make([]obj, 0, min(n, changelogInline))
			for i := n - 1; i >= 0 && len(hs) < changelogInline; i-- {
				hs = append(hs, s.historyJSON(base, is.histories[i]))
			}
			out["changelog"] = obj{"startAt": 0, "maxResults": changelogInline, "total": n, "histories": hs}
		}
		writeJSON(w, http.StatusOK, out)
	})
}

// splitList reads a repeatable, comma-separated query parameter.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// commentPageJSON renders the comment field of an issue state st
// (PageOfComments): of the comments the state had (created at or before
// its update time, which every comment moves: a lagging search shows
// the issue as it was), the oldest Options.IssueComments (all when 0),
// oldest first, with the total.
func (s *Server) commentPageJSON(base string, is *issue, st issueState) obj {
	n := 0
	for n < len(is.comments) && !is.comments[n].created.After(st.updated) {
		n++
	}
	limit := n
	if s.opts.IssueComments > 0 {
		limit = min(n, s.opts.IssueComments)
	}
	cs := make([]obj, 0, limit)
	for _, c := range is.comments[:limit] {
		cs = append(cs, s.commentJSON(base, is, c))
	}
	return obj{"self": base + "/rest/api/3/issue/" + itoa(int(is.id)) + "/comment", "startAt": 0,
		"maxResults": limit, "total": n, "comments": cs}
}

// SetAssignee assigns the issue (accountID "" unassigns it), recording an
// assignee change.
func (s *Server) SetAssignee(key, accountID, author string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	old := is.cur.assignee
	is.cur.assignee = accountID
	if accountID != "" {
		s.user(accountID)
	}
	s.record(is, author, changeItem{field: "assignee", fieldID: "assignee", fieldType: "jira", from: old, to: accountID})
}

// RemoveRole takes accountID out of roleName in project (a demotion).
func (s *Server) RemoveRole(projectKey, roleName, accountID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.addProject(projectKey, "")
	p.roles[roleName] = slices.DeleteFunc(p.roles[roleName], func(id string) bool { return id == accountID })
}
