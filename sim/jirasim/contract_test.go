package jirasim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/sim/internal/apispec"
)

var (
	specOnce sync.Once
	specDoc  *openapi3.T
	specErr  error
)

// loadSpec loads the Jira OpenAPI description once per test binary, or
// skips when it is absent.
func loadSpec(t *testing.T) *openapi3.T {
	t.Helper()
	p := apispec.Path(t, apispec.JiraFile)
	specOnce.Do(func() {
		var data []byte
		if data, specErr = pruneSpec(p); specErr == nil {
			specDoc, specErr = openapi3.NewLoader().LoadFromData(data)
		}
	})
	if specErr != nil {
		t.Fatalf("loading %s: %v", p, specErr)
	}
	return specDoc
}

// emulatedPaths are the spec paths the emulator serves.
var emulatedPaths = []string{
	"/rest/api/3/search/jql", "/rest/api/3/issue/{issueIdOrKey}", "/rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}",
	"/rest/api/3/issue/{issueIdOrKey}/comment", "/rest/api/3/issue/{issueIdOrKey}/changelog",
	"/rest/api/3/changelog/bulkfetch", "/rest/api/3/myself", "/rest/api/3/project/{projectIdOrKey}/role",
	"/rest/api/3/project/{projectIdOrKey}/role/{id}", "/rest/api/3/status/{idOrName}",
	"/rest/api/3/user/properties/{propertyKey}", "/rest/api/3/project/{projectIdOrKey}/properties/{propertyKey}",
	"/rest/api/3/search",
}

// retired are the operations Atlassian removed (answered 410 Gone) that
// the description still lists.
var retired = map[string]bool{"/rest/api/3/search": true}

// pruneSpec keeps only the emulated paths and the components they reach,
// unchanged, so the 2.4 MB description loads in a fraction of the time.
func pruneSpec(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	paths, _ := doc["paths"].(map[string]any)
	kept := map[string]any{}
	for _, p := range emulatedPaths {
		if paths[p] == nil {
			return nil, fmt.Errorf("%s: path %s missing", path, p)
		}
		kept[p] = paths[p]
	}
	doc["paths"] = kept
	comps, _ := doc["components"].(map[string]any)
	reached := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/") && !reached[ref] {
				reached[ref] = true
				parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
				if sec, ok := comps[parts[0]].(map[string]any); ok && len(parts) == 2 {
					walk(sec[parts[1]])
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(kept)
	for secName, sec := range comps {
		m, ok := sec.(map[string]any)
		if !ok || secName == "securitySchemes" {
			continue
		}
		for name := range m {
			if !reached["#/components/"+secName+"/"+name] {
				delete(m, name)
			}
		}
	}
	return json.Marshal(doc)
}

// validator wraps the emulator: every response is checked against the
// operation the request's endpoint template names.
type validator struct {
	t     *testing.T
	doc   *openapi3.T
	inner http.Handler
	mu    sync.Mutex
	seen  map[string]bool // "METHOD template STATUS" validated
	// requests also validates request bodies and parameters (client flows).
	requests bool
}

func (v *validator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var reqBody []byte
	if r.Body != nil {
		reqBody, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	rec := httptest.NewRecorder()
	v.inner.ServeHTTP(rec, r)
	for k, vals := range rec.Header() {
		w.Header()[k] = vals
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())

	method, tmpl := r.Method, templateOf(r)
	item := v.doc.Paths.Value(tmpl)
	if item == nil || item.GetOperation(method) == nil {
		v.t.Errorf("%s %s: no operation %s in the spec", method, r.URL.Path, tmpl)
		return
	}
	route := &routers.Route{Spec: v.doc, Path: tmpl, PathItem: item, Method: method, Operation: item.GetOperation(method)}
	vreq := r.Clone(context.Background())
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	reqIn := &openapi3filter.RequestValidationInput{Request: vreq, Route: route, PathParams: pathParams(tmpl, r.URL.EscapedPath()),
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if v.requests {
		if err := openapi3filter.ValidateRequest(context.Background(), reqIn); err != nil {
			v.t.Errorf("client request %s %s does not match the spec: %v\nbody: %.300s", method, tmpl, err, reqBody)
		}
		vreq = r.Clone(context.Background())
		vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
		reqIn.Request = vreq
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqIn,
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(rec.Body.Bytes())
	if retired[tmpl] && rec.Code == http.StatusGone {
		// Jira answers the retired search 410 with its error collection,
		// a status the description (which still lists the operation)
		// does not document.
		var ec struct {
			ErrorMessages []string `json:"errorMessages"`
		}
		if json.Unmarshal(rec.Body.Bytes(), &ec) != nil || len(ec.ErrorMessages) == 0 {
			v.t.Errorf("%s %s -> 410 without an error collection: %s", method, tmpl, rec.Body.String())
		}
	} else if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		v.t.Errorf("%s %s -> %d does not match the spec: %v\nbody: %.600s", method, tmpl, rec.Code, err, rec.Body.String())
	}
	v.mu.Lock()
	v.seen[method+" "+tmpl+" "+itoa(rec.Code)] = true
	v.mu.Unlock()
}

// templateOf maps a request to its spec path template using the
// emulator's own routing table.
func templateOf(r *http.Request) string {
	_, pattern := contractMux.Handler(r)
	_, path, _ := strings.Cut(pattern, " ")
	return path
}

var contractMux = New(Options{}).mux

// pathParams pairs template segments such as {issueIdOrKey} with the
// request path's segments.
func pathParams(tmpl, path string) map[string]string {
	out := map[string]string{}
	ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
	for i := range ts {
		if i < len(ps) && strings.HasPrefix(ts[i], "{") {
			out[strings.Trim(ts[i], "{}")] = ps[i]
		}
	}
	return out
}

func TestClientRequestsMatchSpec(t *testing.T) {
	doc := loadSpec(t)
	s := New(Options{})
	v := &validator{t: t, doc: doc, inner: s.Handler(), seen: map[string]bool{}, requests: true}
	srv := httptest.NewServer(v)
	defer srv.Close()
	s.AddProject("PROJ", "")
	s.SetRole("PROJ", "Administrators", "adm")
	key := s.AddIssue(IssueSpec{Project: "PROJ", Summary: "s"})
	s.AddComment(key, "adm", "/fs-triage now")
	s.AddLabel(key, "x", "adm")
	c, err := jira.New(jira.Options{BaseURL: srv.URL, Email: "e@example.com", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const prop = "fullsend.poll.acme.platform.lock"
	issues, err := c.Search(ctx, jira.SearchRequest{JQL: "project = PROJ", Properties: []string{prop}, Expand: "changelog", MaxResults: 10}, 0)
	if err != nil || len(issues) != 1 || issues[0].Changelog == nil || len(issues[0].Changelog.Histories) != 1 {
		t.Fatalf("search: %+v %v", issues, err)
	}
	if issues[0].Fields.Created.IsZero() || issues[0].Changelog.Histories[0].Created.IsZero() {
		t.Error("timestamps not decoded")
	}
	steps := []func() error{
		func() error { return c.SetProperty(ctx, key, prop, map[string]any{"id": "u", "phase": "pending"}) },
		func() error { _, _, err := c.GetProperty(ctx, key, prop); return err },
		func() error { _, err := c.DeleteProperty(ctx, key, prop); return err },
		func() error { _, err := c.BulkChangelogs(ctx, []string{key}, []string{"labels", "status"}); return err },
		func() error { _, err := c.Changelog(ctx, key); return err },
		func() error { _, err := c.CommentsSince(ctx, key, time.Time{}); return err },
		func() error { _, err := c.AddComment(ctx, key, "received\n[fullsend:ack comment/1]"); return err },
		func() error { _, err := c.Myself(ctx); return err },
		func() error { _, err := c.ReadIssue(ctx, key); return err },
		func() error { _, err := c.ProjectRoleMembers(ctx, "PROJ"); return err },
		func() error { _, err := c.RoleOf(ctx, "PROJ", "adm"); return err },
		func() error { _, err := c.StatusCategory(ctx, "Done"); return err },
		func() error {
			return c.SetOwnerProperty(ctx, jira.Owner{Kind: jira.OwnerUser, ID: "557058:fullsend-bot"}, "fullsend.cursor", map[string]any{"v": 1})
		},
		func() error {
			_, _, err := c.GetOwnerProperty(ctx, jira.Owner{Kind: jira.OwnerUser, ID: "557058:fullsend-bot"}, "fullsend.cursor")
			return err
		},
		func() error {
			_, _, err := c.GetOwnerProperty(ctx, jira.Owner{Kind: jira.OwnerProject, ID: "PROJ"}, "fullsend.cursor")
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Errorf("step %d: %v", i, err)
		}
	}
}

func TestContractAgainstOpenAPI(t *testing.T) {
	doc := loadSpec(t)
	s := New(Options{})
	v := &validator{t: t, doc: doc, inner: s.Handler(), seen: map[string]bool{}}
	srv := httptest.NewServer(v)
	defer srv.Close()

	s.AddProject("PROJ", "Project")
	s.AddUser(jiraUser("dev1", "Dev One"))
	s.SetRole("PROJ", "Developers", "dev1")
	a := s.AddIssue(IssueSpec{Project: "PROJ", Summary: "first", Labels: []string{"bug"}, Description: "text"})
	b := s.AddIssue(IssueSpec{Project: "PROJ", Summary: "second"})
	s.AddComment(a, "dev1", "/fs-triage go")
	s.AddLabel(a, "needs-info", "dev1")
	s.SetStatus(a, "In Progress", "dev1")
	s.SetAssignee(a, "dev1", "dev1")
	s.SetStatus(b, "Done", "dev1")
	s.SetField(b, "customfield_10010", "3", "dev1")
	s.SetPropertyDirect(a, "fullsend.poll.acme.platform.lastCheck", []byte(`{"ts":"2024-05-02T10:11:12Z"}`))

	calls := []rawCall{
		{"POST", "/rest/api/3/search/jql", `{"jql":"project = PROJ ORDER BY key","fields":["*all"],"properties":["fullsend.poll.acme.platform.lastCheck"],"expand":"changelog","maxResults":1}`},
		{"POST", "/rest/api/3/search/jql", `{"jql":"project = PROJ","fields":["summary","labels","created","updated","status","reporter","creator","project"]}`},
		{"POST", "/rest/api/3/search/jql", `{"jql":"project = NOPE"}`},
		{"POST", "/rest/api/3/search/jql", `{"jql":"project = PROJ"}`},
		{"PUT", "/rest/api/3/issue/" + a + "/properties/lock", `{"id":"x","phase":"pending"}`},
		{"PUT", "/rest/api/3/issue/" + a + "/properties/lock", `{"id":"y","phase":"pending"}`},
		{"GET", "/rest/api/3/issue/" + a + "/properties/lock", ""},
		{"DELETE", "/rest/api/3/issue/" + a + "/properties/lock", ""},
		{"DELETE", "/rest/api/3/issue/" + a + "/properties/lock", ""},
		{"GET", "/rest/api/3/issue/" + a + "/properties/lock", ""},
		{"PUT", "/rest/api/3/issue/" + a + "/properties/lock", `"` + strings.Repeat("x", 40000) + `"`},
		{"GET", "/rest/api/3/issue/" + a + "?fields=summary,description,labels,assignee,resolutiondate,comment,status,reporter&expand=changelog", ""},
		{"GET", "/rest/api/3/issue/" + b + "?properties=fullsend.poll.acme.platform.lastCheck", ""},
		{"GET", "/rest/api/3/issue/NOPE-1?expand=changelog", ""},
		{"GET", "/rest/api/3/issue/" + a + "/comment?orderBy=-created&maxResults=10", ""},
		{"GET", "/rest/api/3/issue/NOPE-1/comment", ""},
		{"POST", "/rest/api/3/issue/" + a + "/comment", `{"body":{"type":"doc","version":1,"content":[{"type":"paragraph","content":[{"type":"text","text":"ok"}]}]}}`},
		{"POST", "/rest/api/3/issue/" + a + "/comment", `{"body":"plain"}`},
		{"POST", "/rest/api/3/issue/NOPE-1/comment", `{"body":{"type":"doc","version":1,"content":[]}}`},
		{"GET", "/rest/api/3/issue/" + a + "/changelog?maxResults=1", ""},
		{"GET", "/rest/api/3/issue/" + b + "/changelog", ""},
		{"GET", "/rest/api/3/issue/NOPE-1/changelog", ""},
		{"POST", "/rest/api/3/changelog/bulkfetch", `{"issueIdsOrKeys":["` + a + `","` + b + `"],"maxResults":1}`},
		{"POST", "/rest/api/3/changelog/bulkfetch", `{"issueIdsOrKeys":["` + a + `"],"fieldIds":["status"]}`},
		{"POST", "/rest/api/3/changelog/bulkfetch", `{"issueIdsOrKeys":[]}`},
		{"GET", "/rest/api/3/myself", ""},
		{"GET", "/rest/api/3/project/PROJ/role", ""},
		{"GET", "/rest/api/3/project/PROJ/role/10001", ""},
		{"GET", "/rest/api/3/project/NOPE/role", ""},
		{"GET", "/rest/api/3/status/In%20Progress", ""},
		{"GET", "/rest/api/3/status/10001", ""},
		{"GET", "/rest/api/3/status/Nope", ""},
		{"GET", "/rest/api/3/search?jql=project%20%3D%20PROJ", ""},
		{"POST", "/rest/api/3/search", `{"jql":"project = PROJ"}`},
		{"PUT", "/rest/api/3/user/properties/fullsend.cursor?accountId=557058:fullsend-bot", `{"v":1}`},
		{"PUT", "/rest/api/3/user/properties/fullsend.cursor?accountId=557058:fullsend-bot", `{"v":2}`},
		{"GET", "/rest/api/3/user/properties/fullsend.cursor?accountId=557058:fullsend-bot", ""},
		{"GET", "/rest/api/3/user/properties/nope?accountId=557058:fullsend-bot", ""},
		{"GET", "/rest/api/3/user/properties/fullsend.cursor?accountId=557058:nobody", ""},
		{"GET", "/rest/api/3/user/properties/fullsend.cursor?accountId=dev1", ""},
		{"PUT", "/rest/api/3/project/PROJ/properties/fullsend.cursor", `{"v":1}`},
		{"GET", "/rest/api/3/project/PROJ/properties/fullsend.cursor", ""},
		{"GET", "/rest/api/3/project/NOPE/properties/fullsend.cursor", ""},
	}
	sendAll(t, srv.URL, calls)
	// A second page of each paginated endpoint is validated too.
	for _, want := range []string{
		"POST /rest/api/3/search/jql 200", "POST /rest/api/3/search/jql 400",
		"PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey} 201",
		"PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey} 200",
		"PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey} 400",
		"GET /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey} 200",
		"GET /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey} 404",
		"DELETE /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey} 204",
		"DELETE /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey} 404",
		"GET /rest/api/3/issue/{issueIdOrKey} 200", "GET /rest/api/3/issue/{issueIdOrKey} 404",
		"GET /rest/api/3/issue/{issueIdOrKey}/comment 200", "GET /rest/api/3/issue/{issueIdOrKey}/comment 404",
		"POST /rest/api/3/issue/{issueIdOrKey}/comment 201", "POST /rest/api/3/issue/{issueIdOrKey}/comment 400",
		"POST /rest/api/3/issue/{issueIdOrKey}/comment 404",
		"GET /rest/api/3/issue/{issueIdOrKey}/changelog 200", "GET /rest/api/3/issue/{issueIdOrKey}/changelog 404",
		"POST /rest/api/3/changelog/bulkfetch 200", "POST /rest/api/3/changelog/bulkfetch 400",
		"GET /rest/api/3/myself 200",
		"GET /rest/api/3/project/{projectIdOrKey}/role 200", "GET /rest/api/3/project/{projectIdOrKey}/role 404",
		"GET /rest/api/3/project/{projectIdOrKey}/role/{id} 200",
		"GET /rest/api/3/status/{idOrName} 200", "GET /rest/api/3/status/{idOrName} 404",
		"PUT /rest/api/3/user/properties/{propertyKey} 201", "PUT /rest/api/3/user/properties/{propertyKey} 200",
		"GET /rest/api/3/user/properties/{propertyKey} 200", "GET /rest/api/3/user/properties/{propertyKey} 404",
		"GET /rest/api/3/user/properties/{propertyKey} 403",
		"PUT /rest/api/3/project/{projectIdOrKey}/properties/{propertyKey} 403",
		"GET /rest/api/3/project/{projectIdOrKey}/properties/{propertyKey} 404",
	} {
		if !v.seen[want] {
			t.Errorf("not exercised: %s", want)
		}
	}
	// A route of the emulator without a contract case fails.
	for _, pattern := range s.Routes() {
		method, path, _ := strings.Cut(pattern, " ")
		covered := false
		for k := range v.seen {
			covered = covered || strings.HasPrefix(k, method+" "+path+" ")
		}
		if !covered {
			t.Errorf("route %s has no contract case", pattern)
		}
	}
}
