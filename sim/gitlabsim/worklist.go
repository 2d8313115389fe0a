package gitlabsim

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"
)

// List endpoints of the work model (for Calls): list_issues,
// list_merge_requests (updated_after, order_by updated_at|created_at,
// sort, page, per_page), issue_notes and merge_request_notes (sort,
// order_by, page, per_page; system notes included as GitLab does).

// parseListRoute maps GET issues, merge_requests and …/:iid/notes.
func parseListRoute(kind string, s []string, rt *route) bool {
	prefix := map[string]string{NoteableIssue: "issue", NoteableMergeRequest: "merge_request"}[kind]
	switch {
	case kind == "":
		return false
	case len(s) == 1:
		rt.endpoint = map[string]string{NoteableIssue: "list_issues", NoteableMergeRequest: "list_merge_requests"}[kind]
	case len(s) == 3 && s[2] == "notes":
		iid, err := strconv.ParseInt(s[1], 10, 64)
		if err != nil || iid < 1 {
			return false
		}
		rt.endpoint, rt.work = prefix+"_notes", workRoute{noteable: kind, iid: iid}
	default:
		return false
	}
	if rt.work.noteable == "" {
		rt.work.noteable = kind
	}
	return true
}

// listWork serves the work list endpoints; it reports whether rt was one.
// Requires s.mu.
func (s *Server) listWork(w http.ResponseWriter, r *http.Request, rt route, proj *Project) bool {
	q := r.URL.Query()
	var after time.Time
	if v := q.Get("updated_after"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			writeErr(w, http.StatusBadRequest, "updated_after is invalid")
			return true
		}
		after = t
	}
	type row struct {
		at time.Time
		id int64
		v  map[string]any
	}
	var rows []row
	switch rt.endpoint {
	case "list_issues":
		for _, is := range s.wk.issues {
			if is.ProjectID == proj.ID && is.UpdatedAt.After(after) {
				rows = append(rows, row{is.UpdatedAt, is.ID, s.entityJSON(proj, workRoute{noteable: NoteableIssue, iid: is.IID})})
			}
		}
	case "list_merge_requests":
		for _, m := range s.wk.mrs {
			if m.ProjectID == proj.ID && m.UpdatedAt.After(after) {
				rows = append(rows, row{m.UpdatedAt, m.ID, s.entityJSON(proj, workRoute{noteable: NoteableMergeRequest, iid: m.IID})})
			}
		}
	case "issue_notes", "merge_request_notes":
		id := s.entityID(proj, rt.work)
		if id == 0 {
			writeMsg(w, http.StatusNotFound, "404 Not found")
			return true
		}
		for _, n := range s.wk.notes {
			if n.ProjectID == proj.ID && n.NoteableType == rt.work.noteable && n.NoteableID == id {
				rows = append(rows, row{n.CreatedAt, n.ID, s.noteJSON(n)})
			}
		}
	default:
		return false
	}
	s.wk.next()
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].at.Equal(rows[j].at) {
			return rows[i].at.Before(rows[j].at)
		}
		return rows[i].id < rows[j].id
	})
	if q.Get("sort") != "asc" {
		for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
			rows[i], rows[j] = rows[j], rows[i]
		}
	}
	out := make([]map[string]any, len(rows))
	for i, rw := range rows {
		out[i] = rw.v
	}
	writePage(w, r, out)
	return true
}

// writePage writes one offset page of out with GitLab's pagination
// headers (X-Page, X-Next-Page, X-Total…).
func writePage(w http.ResponseWriter, r *http.Request, out []map[string]any) {
	q := r.URL.Query()
	page, per := atoiOr(q.Get("page"), 1), min(atoiOr(q.Get("per_page"), 20), 100)
	total := len(out)
	pages := max((total+per-1)/per, 1)
	from := min((page-1)*per, total)
	to := min(from+per, total)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	if page < pages {
		h.Set("X-Next-Page", strconv.Itoa(page+1))
		nq := url.Values(q)
		nq.Set("page", strconv.Itoa(page+1))
		h.Set("Link", "<http://"+r.Host+r.URL.EscapedPath()+"?"+nq.Encode()+`>; rel="next"`)
	}
	writeJSON(w, http.StatusOK, out[from:to])
}

func atoiOr(v string, def int) int {
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return n
	}
	return def
}

// CallsTotal is the number of API requests served so far, every endpoint
// together (unknown paths excluded).
func (s *Server) CallsTotal() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		n += c
	}
	return n
}

// SetTokenUser makes GET /user (the token's own account) answer with user
// id; until then it answers 404.
func (s *Server) SetTokenUser(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wk.next()
	s.wk.tokenUser = id
}
