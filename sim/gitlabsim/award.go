package gitlabsim

// Award emoji on issues, merge requests and their notes (GET and POST
// /projects/:id/{issues|merge_requests}/:iid[/notes/:note_id]/award_emoji):
// awarded by the token's user (SetTokenUser); awarding a name that user
// already awarded on the same awardable answers 404 "Award Emoji Name
// has already been taken", as GitLab does. An award changes no
// updated_at.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"time"
)

// Award is one award emoji, as Awards returns it.
type Award struct {
	ID            int64
	Name          string
	UserID        int64
	AwardableType string // Issue | MergeRequest | Note
	AwardableID   int64  // the global id of the issue or merge request, or the note id
	CreatedAt     time.Time
}

// emojiName is the shape of an emoji name GitLab accepts.
var emojiName = regexp.MustCompile(`^[a-z0-9_+-]{1,64}$`)

// Awards returns the awards on the awardable of type typ (Issue,
// MergeRequest or Note) with global id id (copies).
func (s *Server) Awards(typ string, id int64) []Award {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Award
	for _, a := range s.awards {
		if a.AwardableType == typ && a.AwardableID == id {
			out = append(out, *a)
		}
	}
	return out
}

// parseAwardRoute maps the award emoji endpoints (segments after the
// project) onto rt: {issues|merge_requests}/:iid/award_emoji and
// {issues|merge_requests}/:iid/notes/:note_id/award_emoji.
func parseAwardRoute(method string, s []string, rt *route) bool {
	if method == http.MethodPost && len(s) == 3 && s[2] == "notes" {
		return parseCreateNote(s, rt)
	}
	if (method != http.MethodGet && method != http.MethodPost) || (len(s) != 3 && len(s) != 5) || s[len(s)-1] != "award_emoji" {
		return false
	}
	kind := map[string]string{"issues": NoteableIssue, "merge_requests": NoteableMergeRequest}[s[0]]
	iid, err := strconv.ParseInt(s[1], 10, 64)
	if kind == "" || err != nil || iid < 1 {
		return false
	}
	rt.work = workRoute{noteable: kind, iid: iid}
	prefix := map[string]string{NoteableIssue: "issue", NoteableMergeRequest: "merge_request"}[kind]
	if len(s) == 5 {
		note, err := strconv.ParseInt(s[3], 10, 64)
		if s[2] != "notes" || err != nil || note < 1 {
			return false
		}
		rt.work.sub = note
		prefix += "_note"
	}
	rt.endpoint = map[bool]string{true: "list_", false: "award_"}[method == http.MethodGet] + prefix + "_emoji"
	return true
}

// awardOp serves the award emoji endpoints; it reports whether rt was
// one. Requires s.mu.
func (s *Server) awardOp(w http.ResponseWriter, r *http.Request, body []byte, rt route, proj *Project) bool {
	if rt.endpoint == "create_issue_note" || rt.endpoint == "create_merge_request_note" {
		s.createNote(w, body, rt, proj)
		return true
	}
	if !awardEndpoints[rt.endpoint] {
		return false
	}
	typ, id := rt.work.noteable, s.entityID(proj, rt.work)
	if rt.work.sub != 0 {
		typ, id = "Note", 0
		if n := s.wk.note(proj.ID, rt.work.noteable, rt.work.iid, rt.work.sub); n != nil {
			id = n.ID
		}
	}
	if id == 0 {
		writeMsg(w, http.StatusNotFound, "404 Not found")
		return true
	}
	if r.Method == http.MethodGet {
		out := []map[string]any{}
		for _, a := range s.awards {
			if a.AwardableType == typ && a.AwardableID == id {
				out = append(out, s.awardJSON(a))
			}
		}
		writePage(w, r, out)
		return true
	}
	name := awardName(r, body)
	if !emojiName.MatchString(name) {
		writeErr(w, http.StatusBadRequest, "name is missing")
		return true
	}
	user := s.wk.tokenUser
	for _, a := range s.awards {
		if a.AwardableType == typ && a.AwardableID == id && a.UserID == user && a.Name == name {
			writeMsg(w, http.StatusNotFound, "404 Award Emoji Name has already been taken")
			return true
		}
	}
	a := &Award{ID: s.wk.next(), Name: name, UserID: user, AwardableType: typ, AwardableID: id, CreatedAt: s.st.now()}
	s.awards = append(s.awards, a)
	writeJSON(w, http.StatusCreated, s.awardJSON(a))
	return true
}

var awardEndpoints = map[string]bool{
	"list_issue_emoji": true, "award_issue_emoji": true, "list_merge_request_emoji": true, "award_merge_request_emoji": true,
	"list_issue_note_emoji": true, "award_issue_note_emoji": true, "list_merge_request_note_emoji": true,
	"award_merge_request_note_emoji": true,
}

// awardName is the name a POST asks for: a JSON body, a form body or the
// query, as GitLab's API accepts parameters.
func awardName(r *http.Request, body []byte) string {
	var in struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(body, &in) == nil && in.Name != "" {
		return in.Name
	}
	if q, err := url.ParseQuery(string(body)); err == nil && q.Get("name") != "" {
		return q.Get("name")
	}
	return r.URL.Query().Get("name")
}

func (s *Server) awardJSON(a *Award) map[string]any {
	return map[string]any{"id": a.ID, "name": a.Name, "user": s.userJSON(a.UserID), "created_at": ts(a.CreatedAt),
		"updated_at": ts(a.CreatedAt), "awardable_id": a.AwardableID, "awardable_type": a.AwardableType}
}
