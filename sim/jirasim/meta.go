package jirasim

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
)

type bulkRequest struct {
	IssueIDsOrKeys []string `json:"issueIdsOrKeys"`
	FieldIDs       []string `json:"fieldIds"`
	MaxResults     *int     `json:"maxResults"`
	NextPageToken  string   `json:"nextPageToken"`
}

// handleBulkChangelog pages through the histories of the requested issues
// in request order, oldest history first; unknown issues are left out.
func (s *Server) handleBulkChangelog(w http.ResponseWriter, r *http.Request) {
	var req bulkRequest
	if !decodeBody(w, r, &req) {
		return
	}
	switch {
	case len(req.IssueIDsOrKeys) == 0:
		writeError(w, http.StatusBadRequest, "issueIdsOrKeys must contain at least one issue.")
		return
	case len(req.IssueIDsOrKeys) > 1000:
		writeError(w, http.StatusBadRequest, "issueIdsOrKeys must contain at most 1000 issues.")
		return
	case len(req.FieldIDs) > 10:
		writeError(w, http.StatusBadRequest, "fieldIds must contain at most 10 fields.")
		return
	}
	pageSize := 1000
	if req.MaxResults != nil {
		if *req.MaxResults < 1 || *req.MaxResults > 10000 {
			writeError(w, http.StatusBadRequest, "maxResults must be between 1 and 10000.")
			return
		}
		pageSize = *req.MaxResults
	}
	bind := bindHash(strings.Join(req.IssueIDsOrKeys, ","), strings.Join(req.FieldIDs, ","), strconv.Itoa(pageSize))
	offset := 0
	if req.NextPageToken != "" {
		var err error
		if offset, err = parsePageToken(req.NextPageToken, bind); err != nil {
			writeError(w, http.StatusBadRequest, "The provided nextPageToken is invalid: "+err.Error())
			return
		}
	}
	want := map[string]bool{}
	for _, f := range req.FieldIDs {
		want[f] = true
	}
	base := s.base(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	type entry struct {
		is *issue
		h  *history
	}
	var all []entry
	seen := map[int64]bool{}
	for _, k := range req.IssueIDsOrKeys {
		is := s.lookup(k)
		if is == nil || seen[is.id] {
			continue
		}
		seen[is.id] = true
		for _, h := range is.histories {
			if len(want) > 0 {
				h = filterHistory(h, want)
				if h == nil {
					continue
				}
			}
			all = append(all, entry{is, h})
		}
	}
	end := min(offset+pageSize, len(all))
	logs := []obj{}
	var cur *issue
	for i := min(offset, len(all)); i < end; i++ {
		e := all[i]
		if e.is != cur {
			cur = e.is
			logs = append(logs, obj{"issueId": strconv.FormatInt(e.is.id, 10), "changeHistories": []obj{}})
		}
		last := logs[len(logs)-1]
		last["changeHistories"] = append(last["changeHistories"].([]obj), s.historyJSON(base, e.h))
	}
	resp := obj{"issueChangeLogs": logs}
	if end < len(all) {
		resp["nextPageToken"] = pageToken(end, bind)
	}
	writeJSON(w, http.StatusOK, resp)
}

func filterHistory(h *history, want map[string]bool) *history {
	out := *h
	out.items = nil
	for _, it := range h.items {
		if want[it.fieldID] {
			out.items = append(out.items, it)
		}
	}
	if len(out.items) == 0 {
		return nil
	}
	return &out
}

func (s *Server) handleMyself(w http.ResponseWriter, r *http.Request) {
	base := s.base(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.userJSON(base, s.myself)
	u["locale"] = "en_US"
	writeJSON(w, http.StatusOK, u)
}

// project finds a project by key or id; s.mu must be held.
func (s *Server) project(keyOrID string) *project {
	if p, ok := s.projects[strings.ToUpper(keyOrID)]; ok {
		return p
	}
	for _, p := range s.projects {
		if strconv.FormatInt(p.id, 10) == keyOrID {
			return p
		}
	}
	return nil
}

const projectMissing = "No project could be found with key '%s'."

// withProject runs f under the world lock with the project the path's
// {projectIdOrKey} names, or answers Jira's 404; base is the server's base
// URL for self links.
func (s *Server) withProject(w http.ResponseWriter, r *http.Request, f func(base string, p *project)) {
	key := r.PathValue("projectIdOrKey")
	inWorld(s, w, r, func() *project { return s.project(key) }, strings.Replace(projectMissing, "%s", key, 1), f)
}

// roleURL is the self link of project role id.
func roleURL(base string, project, id int64) string {
	return base + "/rest/api/3/project/" + strconv.FormatInt(project, 10) + "/role/" + strconv.FormatInt(id, 10)
}

func (s *Server) handleRoles(w http.ResponseWriter, r *http.Request) {
	s.withProject(w, r, func(base string, p *project) {
		out := obj{}
		for name, id := range s.roleIDs {
			out[name] = roleURL(base, p.id, id)
		}
		writeJSON(w, http.StatusOK, out)
	})
}

func (s *Server) handleRole(w http.ResponseWriter, r *http.Request) {
	s.withProject(w, r, func(base string, p *project) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, "The role id must be a number.")
			return
		}
		name := ""
		for n, rid := range s.roleIDs {
			if rid == id {
				name = n
			}
		}
		if name == "" {
			writeError(w, http.StatusNotFound, "Can not retrieve a role actor for a null project role.")
			return
		}
		members := append([]string(nil), p.roles[name]...)
		sort.Strings(members)
		actors := []obj{}
		for i, acc := range members {
			u := s.user(acc)
			actors = append(actors, obj{"id": int64(20000 + i), "displayName": u.DisplayName,
				"type": "atlassian-user-role-actor", "actorUser": obj{"accountId": acc}})
		}
		writeJSON(w, http.StatusOK, obj{
			"self": roleURL(base, p.id, id),
			"name": name, "id": id, "description": "Project role " + name, "actors": actors,
		})
	})
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	base := s.base(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status(r.PathValue("idOrName"))
	if st == nil {
		writeError(w, http.StatusNotFound, "The status with id or name '"+r.PathValue("idOrName")+"' does not exist.")
		return
	}
	writeJSON(w, http.StatusOK, statusJSON(base, st))
}
