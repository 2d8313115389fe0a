package gitlabsim

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Endpoint names of the work model, for Calls, InjectFault and SetHook:
// get_issue, get_merge_request, get_issue_note, get_merge_request_note,
// issue_label_events, merge_request_label_events, issue_state_events,
// merge_request_state_events, get_member_all, get_user.

// workRoute addresses an issue or merge request (iid), a note on it, or a
// user (members, users).
type workRoute struct {
	noteable string // Issue | MergeRequest
	iid      int64
	sub      int64 // note id or user id
}

// parseUserRoute maps GET /api/v4/users/:id.
func parseUserRoute(method, escapedPath string) (route, bool) {
	if escapedPath == "/api/v4/user" && method == http.MethodGet {
		return route{endpoint: "current_user"}, true
	}
	rest, ok := strings.CutPrefix(escapedPath, "/api/v4/users/")
	if !ok || method != http.MethodGet {
		return route{}, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || id < 1 {
		return route{}, false
	}
	return route{endpoint: "get_user", work: workRoute{sub: id}}, true
}

// parseWorkRoute maps the issue, merge request, note, label event and
// member endpoints (segments after the project) onto rt.
func parseWorkRoute(method string, s []string, rt *route) bool {
	if method != http.MethodGet || len(s) < 1 {
		return false
	}
	if parseListRoute(map[string]string{"issues": NoteableIssue, "merge_requests": NoteableMergeRequest}[s[0]], s, rt) {
		return true
	}
	if len(s) < 2 {
		return false
	}
	num := func(i int) int64 {
		n, err := strconv.ParseInt(s[i], 10, 64)
		if err != nil || n < 1 {
			return 0
		}
		return n
	}
	if s[0] == "members" && len(s) == 3 && s[1] == "all" && num(2) > 0 {
		rt.endpoint, rt.work.sub = "get_member_all", num(2)
		return true
	}
	kind := map[string]string{"issues": NoteableIssue, "merge_requests": NoteableMergeRequest}[s[0]]
	if kind == "" || num(1) == 0 {
		return false
	}
	rt.work = workRoute{noteable: kind, iid: num(1)}
	prefix := map[string]string{NoteableIssue: "issue", NoteableMergeRequest: "merge_request"}[kind]
	switch {
	case len(s) == 2:
		rt.endpoint = "get_" + prefix
	case len(s) == 4 && s[2] == "notes" && num(3) > 0:
		rt.endpoint, rt.work.sub = "get_"+prefix+"_note", num(3)
	case len(s) == 3 && s[2] == "resource_label_events":
		rt.endpoint = prefix + "_label_events"
	case len(s) == 3 && s[2] == "resource_state_events":
		rt.endpoint = prefix + "_state_events"
	default:
		return false
	}
	return true
}

// workOp serves the work endpoints; it reports whether rt was one.
// Requires s.mu.
func (s *Server) workOp(w http.ResponseWriter, r *http.Request, rt route, proj *Project) bool {
	s.wk.next()
	wr := rt.work
	switch rt.endpoint {
	case "get_issue", "get_merge_request":
		if v := s.entityJSON(proj, wr); v != nil {
			writeJSON(w, http.StatusOK, v)
			return true
		}
	case "get_issue_note", "get_merge_request_note":
		if n := s.wk.note(proj.ID, wr.noteable, wr.iid, wr.sub); n != nil {
			writeJSON(w, http.StatusOK, s.noteJSON(n))
			return true
		}
	case "issue_label_events", "merge_request_label_events":
		if id := s.entityID(proj, wr); id != 0 {
			writePage(w, r, s.labelEventsJSON(wr.noteable, id))
			return true
		}
	case "issue_state_events", "merge_request_state_events":
		if id := s.entityID(proj, wr); id != 0 {
			writePage(w, r, s.stateEventsJSON(wr.noteable, id))
			return true
		}
	case "get_member_all":
		if lvl, ok := s.wk.members[[2]int64{proj.ID, wr.sub}]; ok {
			m := s.userJSON(wr.sub)
			m["access_level"], m["expires_at"] = lvl, nil
			writeJSON(w, http.StatusOK, m)
			return true
		}
	default:
		return false
	}
	writeMsg(w, http.StatusNotFound, "404 Not found")
	return true
}

func (s *Server) getUser(w http.ResponseWriter, rt route) {
	s.wk.next()
	if rt.endpoint == "current_user" {
		rt.work.sub = s.wk.tokenUser
	}
	if s.wk.users[rt.work.sub] == nil {
		writeMsg(w, http.StatusNotFound, "404 User Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.userJSON(rt.work.sub))
}

func (s *Server) entityID(proj *Project, wr workRoute) int64 {
	if wr.noteable == NoteableIssue {
		if is := s.wk.issue(proj.ID, wr.iid); is != nil {
			return is.ID
		}
		return 0
	}
	if m := s.wk.mr(proj.ID, wr.iid); m != nil {
		return m.ID
	}
	return 0
}

// userJSON is the basic user object; bot is set for access token users.
func (s *Server) userJSON(id int64) map[string]any {
	u := s.wk.users[id]
	if u == nil {
		return nil
	}
	return map[string]any{"id": u.ID, "username": u.Username, "name": u.Name, "state": "active", "locked": false,
		"avatar_url": nil, "web_url": WebBase + "/" + url.PathEscape(u.Username), "bot": u.Bot}
}

func (s *Server) optUser(id int64) any {
	if id == 0 {
		return nil
	}
	return s.userJSON(id)
}

func (s *Server) entityJSON(proj *Project, wr workRoute) map[string]any {
	if wr.noteable == NoteableIssue {
		is := s.wk.issue(proj.ID, wr.iid)
		if is == nil {
			return nil
		}
		return map[string]any{"id": is.ID, "iid": is.IID, "project_id": is.ProjectID, "title": is.Title,
			"description": is.Description, "state": is.State, "labels": nonNil(is.Labels), "author": s.userJSON(is.AuthorID),
			"closed_by": s.optUser(is.ClosedBy), "created_at": ts(is.CreatedAt), "updated_at": ts(is.UpdatedAt),
			"web_url": issueURL(proj, is.IID), "type": "ISSUE", "issue_type": "issue", "confidential": false,
			"assignees": s.usersJSON(is.Assignees), "closed_at": ts(is.ClosedAt),
			"references": map[string]any{"full": proj.Path + "#" + strconv.FormatInt(is.IID, 10)}}
	}
	m := s.wk.mr(proj.ID, wr.iid)
	if m == nil {
		return nil
	}
	return map[string]any{"id": m.ID, "iid": m.IID, "project_id": m.ProjectID, "title": m.Title,
		"description": m.Description, "state": m.State, "labels": nonNil(m.Labels), "author": s.userJSON(m.AuthorID),
		"source_project_id": m.SourceProjectID, "target_project_id": m.ProjectID, "source_branch": m.SourceBranch,
		"target_branch": m.TargetBranch, "sha": m.SHA, "draft": m.Draft, "work_in_progress": m.Draft,
		"merged_by": s.optUser(m.MergedBy), "merge_user": s.optUser(m.MergedBy), "closed_by": s.optUser(m.ClosedBy),
		"created_at": ts(m.CreatedAt), "updated_at": ts(m.UpdatedAt), "web_url": mrURL(proj, m.IID),
		"assignees": s.usersJSON(m.Assignees), "closed_at": ts(m.ClosedAt), "merged_at": ts(m.MergedAt),
		"references": map[string]any{"full": proj.Path + "!" + strconv.FormatInt(m.IID, 10)}}
}

func (s *Server) noteJSON(n *Note) map[string]any {
	return map[string]any{"id": n.ID, "type": nil, "body": n.Body, "attachment": nil, "author": s.userJSON(n.AuthorID),
		"created_at": ts(n.CreatedAt), "updated_at": ts(n.UpdatedAt), "system": n.System, "noteable_id": n.NoteableID,
		"noteable_type": n.NoteableType, "project_id": n.ProjectID, "noteable_iid": n.NoteableIID,
		"resolvable": false, "confidential": false, "internal": false}
}

func (s *Server) labelEventsJSON(noteable string, id int64) []map[string]any {
	out := []map[string]any{}
	for _, e := range s.wk.labelEvents {
		if e.ResourceType != noteable || e.ResourceID != id {
			continue
		}
		out = append(out, map[string]any{"id": e.ID, "user": s.userJSON(e.UserID), "created_at": ts(e.CreatedAt),
			"resource_type": e.ResourceType, "resource_id": e.ResourceID, "action": e.Action,
			"label": map[string]any{"id": s.wk.labelID(e.Label), "name": e.Label, "color": "#428BCA", "description": nil}})
	}
	return out
}

func (s *Server) stateEventsJSON(noteable string, id int64) []map[string]any {
	out := []map[string]any{}
	for _, e := range s.wk.stateEvents {
		if e.ResourceType == noteable && e.ResourceID == id {
			out = append(out, map[string]any{"id": e.ID, "user": s.userJSON(e.UserID), "created_at": ts(e.CreatedAt),
				"resource_type": e.ResourceType, "resource_id": e.ResourceID, "state": e.State})
		}
	}
	return out
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
