package jirasim

import (
	"encoding/json"
	"net/http"
	"slices"
)

// ownerProps holds the user and project entity properties and the access
// the emulated account has to them. Per the published API, a user
// property on the caller's own record needs only access to Jira (another
// user's needs Administer Jira); reading a project property needs Browse
// Projects and writing one Administer Projects. Tests toggle the access
// with SetPropertyAccess. s.mu guards it.
type ownerProps struct {
	values map[string]json.RawMessage // "user/<accountId>/<key>" or "project/<KEY>/<key>"
	access map[string]propertyAccess  // by owner kind
}

type propertyAccess struct{ read, write bool }

// Owner kinds of SetPropertyAccess.
const (
	OwnerUser    = "user"
	OwnerProject = "project"
)

// defaultAccess: the app account may use its own user properties and read
// project properties, but is no project administrator.
var defaultAccess = map[string]propertyAccess{OwnerUser: {true, true}, OwnerProject: {true, false}}

// SetPropertyAccess sets whether the emulated account may read and write
// the entity properties of owner kind (OwnerUser: its own user record;
// OwnerProject: any project). Refused calls are answered 403.
func (s *Server) SetPropertyAccess(kind string, read, write bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owners.access == nil {
		s.owners.access = map[string]propertyAccess{}
	}
	s.owners.access[kind] = propertyAccess{read, write}
}

// OwnerProperty reads a user or project property as stored (id is the
// account id or the project key).
func (s *Server) OwnerProperty(kind, id, key string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.owners.values[kind+"/"+id+"/"+key]
	return slices.Clone(v), ok
}

// SetOwnerPropertyDirect writes (nil: deletes) a user or project property
// without an HTTP call, as another poller would.
func (s *Server) SetOwnerPropertyDirect(kind, id, key string, value json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owners.values == nil {
		s.owners.values = map[string]json.RawMessage{}
	}
	if value == nil {
		delete(s.owners.values, kind+"/"+id+"/"+key)
		return
	}
	s.owners.values[kind+"/"+id+"/"+key] = slices.Clone(value)
}

func (s *Server) ownerPropertyRoutes() {
	s.handle("GET /rest/api/3/user/properties/{propertyKey}", s.ownerHandler(OwnerUser, false))
	s.handle("PUT /rest/api/3/user/properties/{propertyKey}", s.ownerHandler(OwnerUser, true))
	s.handle("GET /rest/api/3/project/{projectIdOrKey}/properties/{propertyKey}", s.ownerHandler(OwnerProject, false))
	s.handle("PUT /rest/api/3/project/{projectIdOrKey}/properties/{propertyKey}", s.ownerHandler(OwnerProject, true))
}

// ownerHandler serves GET (write false) or PUT of a kind's properties.
func (s *Server) ownerHandler(kind string, write bool) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		var v json.RawMessage
		key := r.PathValue("propertyKey")
		if write {
			var ok bool
			if key, v, ok = propertyPut(w, r); !ok {
				return
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		id, status, msg := s.ownerOf(kind, r, write)
		if status != 0 {
			writeError(w, status, msg)
			return
		}
		slot := kind + "/" + id + "/" + key
		old, found := s.owners.values[slot]
		switch {
		case write:
			if s.owners.values == nil {
				s.owners.values = map[string]json.RawMessage{}
			}
			s.owners.values[slot] = slices.Clone(v)
			status := http.StatusOK
			if !found {
				status = http.StatusCreated
			}
			writeJSON(w, status, obj{})
		case !found:
			writeError(w, http.StatusNotFound, propertyMissing(key))
		default:
			writeJSON(w, http.StatusOK, obj{"key": key, "value": old})
		}
	}
}

// ownerOf resolves the owner of a property call and checks access; a
// non-zero status is the refusal. s.mu must be held.
func (s *Server) ownerOf(kind string, r *http.Request, write bool) (id string, status int, msg string) {
	acc, ok := s.owners.access[kind]
	if !ok {
		acc = defaultAccess[kind]
	}
	allowed := acc.read
	if write {
		allowed = acc.write
	}
	if kind == OwnerUser {
		id = r.URL.Query().Get("accountId")
		if id == "" {
			id = s.myself
		}
		if _, known := s.users[id]; !known && id != s.myself {
			return "", http.StatusNotFound, "The user with account ID '" + id + "' does not exist."
		}
		if id != s.myself || !allowed {
			return "", http.StatusForbidden, "You do not have permission to access this user's properties."
		}
		return id, 0, ""
	}
	p := s.project(r.PathValue("projectIdOrKey"))
	if p == nil {
		return "", http.StatusNotFound, "No project could be found with key '" + r.PathValue("projectIdOrKey") + "'."
	}
	if !allowed {
		return "", http.StatusForbidden, "You do not have permission to edit the properties of this project."
	}
	return p.key, 0, ""
}
