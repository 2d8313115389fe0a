package gitlabsim

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// List endpoints of the work model (for Calls): list_issues,
// list_merge_requests (updated_after, "updated on or after" as GitLab
// documents it; order_by updated_at|created_at,
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
			if is.ProjectID == proj.ID && !is.UpdatedAt.Before(after) {
				rows = append(rows, row{is.UpdatedAt, is.ID, s.entityJSON(proj, workRoute{noteable: NoteableIssue, iid: is.IID})})
			}
		}
	case "list_merge_requests":
		for _, m := range s.wk.mrs {
			if m.ProjectID == proj.ID && !m.UpdatedAt.Before(after) {
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
// headers.
func writePage(w http.ResponseWriter, r *http.Request, out []map[string]any) {
	from, to := setPage(w, r, len(out))
	writeJSON(w, http.StatusOK, out[from:to])
}

// setPage sets the offset pagination headers every GitLab list sends
// (X-Page, X-Per-Page, X-Total, X-Total-Pages, X-Next-Page and
// X-Prev-Page, empty when there is none, and a Link header with first,
// prev, next and last) for a listing of total items, and returns the
// bounds of the requested page (page and per_page; default 20, at most
// 100).
func setPage(w http.ResponseWriter, r *http.Request, total int) (from, to int) {
	q := r.URL.Query()
	page, per := atoiOr(q.Get("page"), 1), min(atoiOr(q.Get("per_page"), 20), 100)
	pages := max((total+per-1)/per, 1)
	from = min((page-1)*per, total)
	to = min(from+per, total)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	link := func(n int, rel string) string {
		nq := url.Values(r.URL.Query())
		nq.Set("page", strconv.Itoa(n))
		return "<http://" + r.Host + r.URL.EscapedPath() + "?" + nq.Encode() + `>; rel="` + rel + `"`
	}
	var links []string
	if page > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(min(page-1, pages)))
		links = append(links, link(min(page-1, pages), "prev"))
	}
	if page < pages {
		h.Set("X-Next-Page", strconv.Itoa(page+1))
		links = append(links, link(page+1, "next"))
	}
	links = append(links, link(1, "first"), link(pages, "last"))
	h.Set("Link", strings.Join(links, ", "))
	return from, to
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
