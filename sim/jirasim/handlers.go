package jirasim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.handle("POST /rest/api/3/search/jql", s.handleSearch)
	s.handle("GET /rest/api/3/search", s.handleRetiredSearch)
	s.handle("POST /rest/api/3/search", s.handleRetiredSearch)
	s.handle("GET /rest/api/3/issue/{issueIdOrKey}", s.handleIssue)
	s.handle("GET /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}", s.handleGetProperty)
	s.handle("PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}", s.handlePutProperty)
	s.handle("DELETE /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}", s.handleDeleteProperty)
	s.handle("GET /rest/api/3/issue/{issueIdOrKey}/comment", s.handleComments)
	s.handle("POST /rest/api/3/issue/{issueIdOrKey}/comment", s.handleAddComment)
	s.handle("GET /rest/api/3/issue/{issueIdOrKey}/changelog", s.handleChangelog)
	s.handle("POST /rest/api/3/changelog/bulkfetch", s.handleBulkChangelog)
	s.handle("GET /rest/api/3/myself", s.handleMyself)
	s.ownerPropertyRoutes()
	s.handle("GET /rest/api/3/project/{projectIdOrKey}/role", s.handleRoles)
	s.handle("GET /rest/api/3/project/{projectIdOrKey}/role/{id}", s.handleRole)
	s.handle("GET /rest/api/3/status/{idOrName}", s.handleStatus)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.calls["UNMATCHED"]++
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "The Jira emulator does not serve "+r.Method+" "+r.URL.Path)
	})
}

const issueMissing = "Issue does not exist or you do not have permission to see it."

// lookup finds a live issue by key or id; s.mu must be held.
func (s *Server) lookup(keyOrID string) *issue {
	is, ok := s.issues[strings.ToUpper(keyOrID)]
	if !ok {
		if n, err := strconv.ParseInt(keyOrID, 10, 64); err == nil {
			is, ok = s.byID[n]
		}
	}
	if !ok || is.cur.deleted {
		return nil
	}
	return is
}

// withIssue runs f under the world lock with the live issue the path's
// {issueIdOrKey} names, or answers Jira's 404; base is the server's base
// URL for self links.
func (s *Server) withIssue(w http.ResponseWriter, r *http.Request, f func(base string, is *issue)) {
	inWorld(s, w, r, func() *issue { return s.lookup(r.PathValue("issueIdOrKey")) }, issueMissing, f)
}

// inWorld runs f under the world lock with what find returns, or answers
// 404 with missing when find returns nil.
func inWorld[T any](s *Server, w http.ResponseWriter, r *http.Request, find func() *T, missing string, f func(base string, v *T)) {
	base := s.base(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	v := find()
	if v == nil {
		writeError(w, http.StatusNotFound, missing)
		return
	}
	f(base, v)
}

func propertyMissing(key string) string {
	return "The property with key '" + key + "' does not exist."
}

func (s *Server) handleGetProperty(w http.ResponseWriter, r *http.Request) {
	s.withIssue(w, r, func(_ string, is *issue) {
		key := r.PathValue("propertyKey")
		v, ok := is.cur.props[key]
		if !ok {
			writeError(w, http.StatusNotFound, propertyMissing(key))
			return
		}
		writeJSON(w, http.StatusOK, obj{"key": key, "value": json.RawMessage(v)})
	})
}

func (s *Server) handlePutProperty(w http.ResponseWriter, r *http.Request) {
	key, v, ok := propertyPut(w, r)
	if !ok {
		return
	}
	s.withIssue(w, r, func(_ string, is *issue) {
		status := http.StatusOK
		if _, ok := is.cur.props[key]; !ok {
			status = http.StatusCreated
		}
		is.cur.props[key] = append(json.RawMessage(nil), v...)
		s.touch(is, false)
		writeJSON(w, status, obj{})
	})
}

// propertyPut reads and checks an entity property PUT (any owner): the
// key from the path and the JSON value from the body.
func propertyPut(w http.ResponseWriter, r *http.Request) (string, json.RawMessage, bool) {
	var v json.RawMessage
	if !decodeBody(w, r, &v) {
		return "", nil, false
	}
	key := r.PathValue("propertyKey")
	if utf8.RuneCountInString(key) > 255 {
		writeError(w, http.StatusBadRequest, "The property key cannot be longer than 255 characters.")
		return "", nil, false
	}
	if len(v) == 0 || string(v) == "null" {
		writeError(w, http.StatusBadRequest, "The property value must not be empty.")
		return "", nil, false
	}
	if utf8.RuneCount(v) > 32768 {
		writeError(w, http.StatusBadRequest, "The property value cannot be longer than 32768 characters.")
		return "", nil, false
	}
	return key, v, true
}

func (s *Server) handleDeleteProperty(w http.ResponseWriter, r *http.Request) {
	s.withIssue(w, r, func(_ string, is *issue) {
		key := r.PathValue("propertyKey")
		if _, ok := is.cur.props[key]; !ok {
			writeError(w, http.StatusNotFound, propertyMissing(key))
			return
		}
		delete(is.cur.props, key)
		s.touch(is, false)
		w.WriteHeader(http.StatusNoContent)
	})
}

// pageParams reads startAt and maxResults (default def, at most limit).
func pageParams(w http.ResponseWriter, r *http.Request, def, limit int) (int, int, bool) {
	start, max := 0, def
	q := r.URL.Query()
	for name, dst := range map[string]*int{"startAt": &start, "maxResults": &max} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				writeError(w, http.StatusBadRequest, "The value of '"+name+"' must be a non-negative integer.")
				return 0, 0, false
			}
			*dst = n
		}
	}
	return start, min(max, limit), true
}

func (s *Server) handleComments(w http.ResponseWriter, r *http.Request) {
	start, max, ok := pageParams(w, r, 100, 5000)
	if !ok {
		return
	}
	order := r.URL.Query().Get("orderBy")
	switch order {
	case "", "created", "+created", "-created":
	default:
		writeError(w, http.StatusBadRequest, "The orderBy value '"+order+"' is invalid; use created, +created or -created.")
		return
	}
	s.withIssue(w, r, func(base string, is *issue) {
		n := len(is.comments)
		out := []obj{}
		for i := start; i < n && len(out) < max; i++ {
			c := is.comments[i]
			if order == "-created" {
				c = is.comments[n-1-i]
			}
			out = append(out, s.commentJSON(base, is, c))
		}
		writeJSON(w, http.StatusOK, obj{"startAt": start, "maxResults": max, "total": n, "comments": out})
	})
}

func (s *Server) handleChangelog(w http.ResponseWriter, r *http.Request) {
	start, max, ok := pageParams(w, r, 100, 100)
	if !ok {
		return
	}
	s.withIssue(w, r, func(base string, is *issue) {
		n := len(is.histories)
		vals := []obj{}
		for i := start; i < n && len(vals) < max; i++ {
			vals = append(vals, s.historyJSON(base, is.histories[i]))
		}
		self := base + "/rest/api/3/issue/" + is.key + "/changelog"
		resp := obj{"self": self + "?startAt=" + itoa(start) + "&maxResults=" + itoa(max),
			"maxResults": max, "startAt": start, "total": n, "isLast": start+len(vals) >= n, "values": vals}
		if start+len(vals) < n {
			resp["nextPage"] = self + "?startAt=" + itoa(start+len(vals)) + "&maxResults=" + itoa(max)
		}
		writeJSON(w, http.StatusOK, resp)
	})
}
