package jirasim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Enhanced search limits as modelled here.
const (
	defaultSearchPage = 50
	maxSearchPage     = 5000
	maxRichPage       = 100 // with fields other than id/key, properties or changelog
	maxBodyBytes      = 1 << 20
	maxReconcile      = 50 // ids in reconcileIssues
)

type searchRequest struct {
	JQL             string   `json:"jql"`
	Fields          []string `json:"fields"`
	FieldsByKeys    bool     `json:"fieldsByKeys"`
	Expand          string   `json:"expand"`
	Properties      []string `json:"properties"`
	MaxResults      *int     `json:"maxResults"`
	NextPageToken   string   `json:"nextPageToken"`
	ReconcileIssues []int64  `json:"reconcileIssues"`
}

// decodeBody strictly decodes a JSON request body, answering 400 itself.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil || len(body) > maxBodyBytes {
		writeError(w, http.StatusBadRequest, "Invalid request payload: body unreadable or larger than 1 MiB.")
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "Invalid request payload. Refer to the REST API documentation and try again: "+err.Error())
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, http.StatusBadRequest, "Invalid request payload: unexpected data after the JSON value.")
		return false
	}
	return true
}

// pageToken is the opaque nextPageToken: an offset bound to the request.
func pageToken(offset int, bind uint64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%d:%x", offset, bind)))
}

func parsePageToken(tok string, bind uint64) (int, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return 0, errors.New("bad encoding")
	}
	off, h, ok := strings.Cut(string(raw), ":")
	n, err := strconv.Atoi(off)
	if !ok || err != nil || n < 0 || h != fmt.Sprintf("%x", bind) {
		return 0, errors.New("token does not belong to this query")
	}
	return n, nil
}

func bindHash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	var req searchRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if len(req.Properties) > 5 {
		writeError(w, http.StatusBadRequest, "You can request at most 5 issue properties.")
		return
	}
	if len(req.ReconcileIssues) > maxReconcile {
		writeError(w, http.StatusBadRequest, "reconcileIssues accepts at most 50 issue ids.")
		return
	}
	changelog := false
	for _, e := range strings.Split(req.Expand, ",") {
		changelog = changelog || strings.TrimSpace(e) == "changelog"
	}
	fields := req.Fields
	if len(fields) == 0 {
		fields = []string{"id"}
	}
	limit := maxSearchPage
	if changelog || len(req.Properties) > 0 || len(expandFields(fields, issueState{})) > 0 {
		limit = maxRichPage
	}
	pageSize := defaultSearchPage
	if req.MaxResults != nil {
		pageSize = min(max(0, *req.MaxResults), limit)
	}
	s.noteJQL(req.JQL)
	q, err := parseJQL(req.JQL)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if q.where == nil {
		writeError(w, http.StatusBadRequest, "Unbounded JQL queries are not allowed here. Please add a search restriction to your query.")
		return
	}
	bind := bindHash(req.JQL, strings.Join(fields, ","), req.Expand, strings.Join(req.Properties, ","), strconv.Itoa(pageSize))
	offset := 0
	if req.NextPageToken != "" {
		if offset, err = parsePageToken(req.NextPageToken, bind); err != nil {
			writeError(w, http.StatusBadRequest, "The provided nextPageToken is invalid: "+err.Error())
			return
		}
	}
	base := s.base(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	match, err := s.compile(q.where, s.now())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	reconcile := map[int64]bool{}
	for _, id := range req.ReconcileIssues {
		reconcile[id] = true
	}
	type hit struct {
		is *issue
		st issueState
	}
	var hits []*hit // pointers: sorting tens of thousands of hits moves no issue state
	for _, is := range s.issues {
		if st, ok := s.searchState(is, reconcile[is.id]); ok && match(is, st) {
			hits = append(hits, &hit{is, st})
		}
	}
	order := q.order
	if len(order) == 0 {
		order = []orderKey{{field: "key", desc: true}}
	}
	slices.SortFunc(hits, func(a, b *hit) int {
		for _, o := range order {
			if c := compareBy(s.orderField(o.field), a.is, a.st, b.is, b.st); c != 0 {
				if o.desc {
					return -c
				}
				return c
			}
		}
		return cmpInt(a.is.id, b.is.id)
	})
	issues := []obj{}
	end := min(offset+pageSize, len(hits))
	for i := min(offset, len(hits)); i < end; i++ {
		issues = append(issues, s.issueJSON(base, hits[i].is, hits[i].st, fields, req.Properties, changelog))
	}
	resp := obj{"issues": issues, "isLast": end >= len(hits)}
	if end < len(hits) && pageSize > 0 {
		resp["nextPageToken"] = pageToken(end, bind)
	} else {
		resp["isLast"] = true
	}
	writeJSON(w, http.StatusOK, resp)
}

// maxJQLs is how many searches SearchJQL remembers.
const maxJQLs = 1000

// noteJQL remembers the JQL of a search received (SearchJQL).
func (s *Server) noteJQL(jql string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.jqls) == maxJQLs {
		s.jqls = slices.Delete(s.jqls, 0, maxJQLs/2)
	}
	s.jqls = append(s.jqls, jql)
}

// SearchJQL returns the JQL of the searches received (the latest 500 to
// 1000), oldest first, refused ones too.
func (s *Server) SearchJQL() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.jqls)
}

// compareBy orders two issues by an ORDER BY field (-1, 0, 1).
func compareBy(field string, a *issue, as issueState, b *issue, bs issueState) int {
	switch field {
	case "created":
		return a.created.Compare(b.created)
	case "updated":
		return as.updated.Compare(bs.updated)
	case "key":
		if c := strings.Compare(a.project.key, b.project.key); c != 0 {
			return c
		}
		return cmpInt(int64(a.num), int64(b.num))
	case "id":
		return cmpInt(a.id, b.id)
	case "status":
		return strings.Compare(as.status.name, bs.status.name)
	case "project":
		return strings.Compare(a.project.key, b.project.key)
	case "summary":
		return strings.Compare(as.summary, bs.summary)
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *Server) handleRetiredSearch(w http.ResponseWriter, _ *http.Request) {
	writeError(w, http.StatusGone, "The requested API has been removed. Please migrate to the /rest/api/3/search/jql API.")
}
