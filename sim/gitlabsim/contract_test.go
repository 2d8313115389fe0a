package gitlabsim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// GitLab publishes no complete schema of its REST answers; this is the one
// table of the shapes its REST documentation gives for each endpoint the
// emulator serves: the attributes of the answer (a list or one object)
// with their types, and whether the list is offset-paginated. Types:
// int, string, bool, time (ISO 8601 UTC with milliseconds, as GitLab
// renders every timestamp), object, array; a trailing ? allows null.
var gitlabShapes = map[string]struct {
	list, paged bool
	fields      map[string]string
}{
	"get_project":     {fields: f("id int", "path_with_namespace string", "web_url string")},
	"create_pipeline": {fields: pipelineFields("tag bool", "before_sha string", "detailed_status object")},
	"list_pipelines":  {list: true, paged: true, fields: pipelineFields()},
	"get_pipeline":    {fields: pipelineFields("tag bool", "before_sha string", "detailed_status object")},
	"pipeline_jobs":   {list: true, paged: true, fields: jobFields},
	// Pipeline variables are one unpaginated array in GitLab's answer.
	"pipeline_variables":         {list: true, fields: f("key string", "value string", "variable_type string")},
	"cancel_pipeline":            {fields: pipelineFields("tag bool", "before_sha string", "detailed_status object")},
	"get_job":                    {fields: jobFields},
	"cancel_job":                 {fields: jobFields},
	"list_resource_groups":       {list: true, paged: true, fields: groupFields},
	"get_resource_group":         {fields: groupFields},
	"edit_resource_group":        {fields: groupFields},
	"upcoming_jobs":              {list: true, paged: true, fields: jobFields},
	"list_issues":                {list: true, paged: true, fields: issueFields},
	"list_merge_requests":        {list: true, paged: true, fields: mrFields},
	"get_issue":                  {fields: issueFields},
	"get_merge_request":          {fields: mrFields},
	"issue_notes":                {list: true, paged: true, fields: noteFields},
	"merge_request_notes":        {list: true, paged: true, fields: noteFields},
	"get_issue_note":             {fields: noteFields},
	"get_merge_request_note":     {fields: noteFields},
	"issue_label_events":         {list: true, paged: true, fields: labelEventFields},
	"merge_request_label_events": {list: true, paged: true, fields: labelEventFields},
	"issue_state_events":         {list: true, paged: true, fields: stateEventFields},
	"merge_request_state_events": {list: true, paged: true, fields: stateEventFields},
	"get_member_all":             {fields: f("id int", "username string", "name string", "state string", "web_url string", "access_level int", "expires_at string?")},
	"get_user":                   {fields: userFields},
	"current_user":               {fields: userFields},
}

var (
	userFields = f("id int", "username string", "name string", "state string", "locked bool", "avatar_url string?",
		"web_url string", "bot bool")
	jobFields = f("id int", "name string", "status string", "stage string", "ref string", "tag bool",
		"allow_failure bool", "created_at time", "started_at time?", "finished_at time?", "web_url string", "pipeline object")
	groupFields = f("id int", "key string", "process_mode string", "created_at time", "updated_at time")
	issueFields = f("id int", "iid int", "project_id int", "title string", "description string?", "state string",
		"labels array", "author object", "closed_by object?", "created_at time", "updated_at time", "web_url string",
		"issue_type string", "confidential bool", "references object", "assignees array", "closed_at time?")
	mrFields = f("id int", "iid int", "project_id int", "title string", "description string?", "state string",
		"labels array", "author object", "source_project_id int", "target_project_id int", "source_branch string",
		"target_branch string", "sha string", "draft bool", "work_in_progress bool", "merged_by object?",
		"merge_user object?", "closed_by object?", "created_at time", "updated_at time", "web_url string", "references object",
		"assignees array", "closed_at time?", "merged_at time?")
	noteFields = f("id int", "type string?", "body string", "author object", "created_at time", "updated_at time",
		"system bool", "noteable_id int", "noteable_type string", "project_id int", "noteable_iid int",
		"resolvable bool", "confidential bool", "internal bool")
	labelEventFields = f("id int", "user object", "created_at time", "resource_type string", "resource_id int",
		"label object", "action string")
	stateEventFields = f("id int", "user object", "created_at time", "resource_type string", "resource_id int", "state string")
)

func pipelineFields(more ...string) map[string]string {
	return f(append([]string{"id int", "iid int", "project_id int", "status string", "source string", "ref string",
		"sha string", "name string?", "web_url string", "created_at time", "updated_at time"}, more...)...)
}

func f(specs ...string) map[string]string {
	m := map[string]string{}
	for _, s := range specs {
		name, typ, _ := strings.Cut(s, " ")
		m[name] = typ
	}
	return m
}

var msTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// checkValue reports how v fails the type typ ("" when it fits).
func checkValue(v any, typ string) string {
	typ, nullable := strings.CutSuffix(typ, "?")
	if v == nil {
		if nullable {
			return ""
		}
		return "null, want " + typ
	}
	ok := false
	switch typ {
	case "int":
		n, isNum := v.(float64)
		ok = isNum && n == float64(int64(n))
	case "string":
		_, ok = v.(string)
	case "time":
		s, _ := v.(string)
		ok = msTime.MatchString(s)
	case "bool":
		_, ok = v.(bool)
	case "object":
		_, ok = v.(map[string]any)
	case "array":
		_, ok = v.([]any)
	}
	if !ok {
		return fmt.Sprintf("%v, want %s", v, typ)
	}
	return ""
}

// checkShape checks an answer of endpoint against the table: its
// attributes, and on lists the paging headers every GitLab list sends.
func checkShape(endpoint string, status int, h http.Header, body []byte, q map[string]string) []string {
	var errs []string
	if status >= 400 {
		var e map[string]any
		if json.Unmarshal(body, &e) != nil || (e["message"] == nil && e["error"] == nil) {
			errs = append(errs, "an error without message or error: "+string(body))
		}
		return errs
	}
	sh, ok := gitlabShapes[endpoint]
	if !ok {
		return []string{"no shape in the table"}
	}
	var items []map[string]any
	if sh.list {
		if err := json.Unmarshal(body, &items); err != nil {
			return []string{"not a JSON array: " + err.Error()}
		}
	} else {
		var one map[string]any
		if err := json.Unmarshal(body, &one); err != nil {
			return []string{"not a JSON object: " + err.Error()}
		}
		items = []map[string]any{one}
	}
	for i, it := range items {
		for name, typ := range sh.fields {
			v, present := it[name]
			if !present {
				errs = append(errs, fmt.Sprintf("[%d] missing %s", i, name))
			} else if msg := checkValue(v, typ); msg != "" {
				errs = append(errs, fmt.Sprintf("[%d].%s: %s", i, name, msg))
			}
		}
	}
	if sh.paged {
		errs = append(errs, checkPaging(h, len(items), q)...)
	}
	return errs
}

// checkPaging applies GitLab's offset pagination rules: the six headers
// are present, the page and per_page are the requested ones (default 1
// and 20), the page holds at most per_page items, the next page is empty
// exactly on the last page, the previous one exactly on the first.
func checkPaging(h http.Header, n int, q map[string]string) []string {
	var errs []string
	num := func(k string) int {
		if _, ok := h[http.CanonicalHeaderKey(k)]; !ok {
			errs = append(errs, "missing header "+k)
		}
		v, _ := strconv.Atoi(h.Get(k))
		return v
	}
	page, per, total, pages := num("X-Page"), num("X-Per-Page"), num("X-Total"), num("X-Total-Pages")
	next, prev := num("X-Next-Page"), num("X-Prev-Page")
	want := func(k string, def int) int {
		if v, err := strconv.Atoi(q[k]); err == nil {
			return v
		}
		return def
	}
	switch {
	case page != want("page", 1), per != want("per_page", 20):
		errs = append(errs, fmt.Sprintf("page %d per_page %d, want the requested %v", page, per, q))
	case n > per:
		errs = append(errs, fmt.Sprintf("%d items on a page of %d", n, per))
	case pages != max((total+per-1)/per, 1):
		errs = append(errs, fmt.Sprintf("%d pages for %d items of %d", pages, total, per))
	case (page < pages) != (next == page+1), (page >= pages) != (h.Get("X-Next-Page") == ""):
		errs = append(errs, fmt.Sprintf("next page %q on page %d of %d", h.Get("X-Next-Page"), page, pages))
	case (page > 1) != (prev > 0 && prev == page-1), (page == 1) != (h.Get("X-Prev-Page") == ""):
		errs = append(errs, fmt.Sprintf("previous page %q on page %d", h.Get("X-Prev-Page"), page))
	case page < pages && !strings.Contains(h.Get("Link"), `rel="next"`):
		errs = append(errs, "no rel=next in Link: "+h.Get("Link"))
	}
	return errs
}

// contractCase is one request of the contract test and the status it
// must get.
type contractCase struct {
	method, path, body string
	status             int
}

// TestContractAgainstDocumentation: every route answers in the shape the
// table gives (success and error), lists page by GitLab's rules, and a
// route without a case fails the test.
func TestContractAgainstDocumentation(t *testing.T) {
	s := New(Options{})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ada := s.AddUser("ada", false)
	bot := s.AddUser("project_1_bot_x", true)
	s.SetTokenUser(bot.ID)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.SetMember("acme/platform", ada.ID, AccessDeveloper))
	is, _, err := s.CreateIssue("acme/platform", ada.ID, "bug", "", []string{"bug"})
	must(err)
	mr, _, err := s.CreateMergeRequest("acme/platform", MergeRequestSpec{SourceBranch: "fix", TargetBranch: "main", Title: "fix", AuthorID: ada.ID})
	must(err)
	for _, kind := range []string{NoteableIssue, NoteableMergeRequest} {
		iid := map[string]int64{NoteableIssue: is.IID, NoteableMergeRequest: mr.IID}[kind]
		for _, l := range []string{"a", "b"} {
			_, _, err := s.AddNote("acme/platform", kind, iid, ada.ID, "/fs-triage "+l)
			must(err)
			_, err = s.ChangeLabels("acme/platform", kind, iid, ada.ID, []string{l}, nil)
			must(err)
		}
		_, err = s.SetState("acme/platform", kind, iid, ada.ID, "close")
		must(err)
		_, err = s.SetState("acme/platform", kind, iid, ada.ID, "reopen")
		must(err)
	}
	for range 2 {
		_, err := s.CreatePipeline("acme/platform", "main", map[string]string{"FULLSEND_RESOURCE_KEY": "k"})
		must(err)
	}
	p := "/api/v4/projects/acme%2Fplatform"
	i, m := strconv.FormatInt(is.IID, 10), strconv.FormatInt(mr.IID, 10)
	notes := s.notesOf(t)
	cases := []contractCase{
		{"GET", p, "", 200},
		{"GET", "/api/v4/projects/9", "", 404},
		{"POST", p + "/pipeline", `{"ref":"main","variables":[{"key":"A","value":"1"}]}`, 201},
		{"POST", p + "/pipeline", `{"ref":"gone"}`, 400},
		{"GET", p + "/pipelines?per_page=1", "", 200},
		{"GET", p + "/pipelines?per_page=1&page=2", "", 200},
		{"GET", p + "/pipelines?status=nope", "", 400},
		{"GET", p + "/pipelines?created_after=2000-01-01T00:00:00Z&created_before=2100-01-01T00:00:00Z", "", 200},
		{"GET", p + "/pipelines?created_before=yesterday", "", 400},
		{"GET", p + "/pipelines/1", "", 200},
		{"GET", p + "/pipelines/99", "", 404},
		{"GET", p + "/pipelines/1/jobs", "", 200},
		{"GET", p + "/pipelines/1/variables", "", 200},
		{"GET", p + "/jobs/1", "", 200},
		{"GET", p + "/jobs/99", "", 404},
		{"GET", p + "/resource_groups", "", 200},
		{"GET", p + "/resource_groups/fullsend-k", "", 200},
		{"GET", p + "/resource_groups/nope", "", 404},
		{"GET", p + "/resource_groups/fullsend-k/upcoming_jobs?per_page=1", "", 200},
		{"PUT", p + "/resource_groups/fullsend-k", `{"process_mode":"oldest_first"}`, 200},
		{"PUT", p + "/resource_groups/fullsend-k", `{"process_mode":"sideways"}`, 400},
		{"POST", p + "/jobs/2/cancel", "", 201},
		{"POST", p + "/pipelines/1/cancel", "", 200},
		{"GET", p + "/issues?updated_after=2000-01-01T00:00:00Z&order_by=updated_at&sort=asc", "", 200},
		{"GET", p + "/issues?updated_after=yesterday", "", 400},
		{"GET", p + "/merge_requests?per_page=1", "", 200},
		{"GET", p + "/issues/" + i, "", 200},
		{"GET", p + "/issues/99", "", 404},
		{"GET", p + "/merge_requests/" + m, "", 200},
		{"GET", p + "/issues/" + i + "/notes?per_page=1&page=2&sort=asc", "", 200},
		{"GET", p + "/merge_requests/" + m + "/notes?per_page=1", "", 200},
		{"GET", p + "/issues/" + i + "/notes/99", "", 404},
		{"GET", p + "/issues/" + i + "/notes/" + strconv.FormatInt(notes[NoteableIssue], 10), "", 200},
		{"GET", p + "/merge_requests/" + m + "/notes/" + strconv.FormatInt(notes[NoteableMergeRequest], 10), "", 200},
		{"GET", p + "/issues/" + i + "/resource_label_events?per_page=1", "", 200},
		{"GET", p + "/issues/" + i + "/resource_label_events?per_page=1&page=2", "", 200},
		{"GET", p + "/merge_requests/" + m + "/resource_label_events", "", 200},
		{"GET", p + "/issues/" + i + "/resource_state_events?per_page=1", "", 200},
		{"GET", p + "/merge_requests/" + m + "/resource_state_events?per_page=1&page=2", "", 200},
		{"GET", p + "/members/all/" + strconv.FormatInt(ada.ID, 10), "", 200},
		{"GET", p + "/members/all/999", "", 404},
		{"GET", "/api/v4/users/" + strconv.FormatInt(ada.ID, 10), "", 200},
		{"GET", "/api/v4/users/999", "", 404},
		{"GET", "/api/v4/user", "", 200},
	}
	cases = append(cases, awardCases(p, i, m, notes)...)
	seen := map[string]bool{}
	client := srv.Client()
	for _, c := range cases {
		rt, ok := parseRoute(c.method, strings.SplitN(c.path, "?", 2)[0])
		if !ok {
			t.Fatalf("%s %s: not routed", c.method, c.path)
		}
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		req.Header.Set("PRIVATE-TOKEN", s.Token())
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: status %d, want %d: %s", c.method, c.path, resp.StatusCode, c.status, body)
			continue
		}
		q := map[string]string{}
		for k, v := range req.URL.Query() {
			q[k] = v[0]
		}
		for _, e := range checkShape(rt.endpoint, resp.StatusCode, resp.Header, body, q) {
			t.Errorf("%s %s -> %d (%s): %s", c.method, c.path, resp.StatusCode, rt.endpoint, e)
		}
		if resp.StatusCode < 300 {
			seen[rt.endpoint] = true
		}
	}
	for _, r := range Routes() {
		if !seen[r.Endpoint] {
			t.Errorf("route %s %s (%s) has no successful contract case", r.Method, r.Path, r.Endpoint)
		}
		if _, ok := gitlabShapes[r.Endpoint]; !ok {
			t.Errorf("route %s has no shape in the table", r.Endpoint)
		}
	}
}

// notesOf returns the id of the first note on each kind of noteable.
func (s *Server) notesOf(t *testing.T) map[string]int64 {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int64{}
	for _, n := range s.wk.notes {
		if out[n.NoteableType] == 0 {
			out[n.NoteableType] = n.ID
		}
	}
	return out
}

// TestTimestampsMilliseconds: timestamps are rendered with milliseconds,
// as GitLab renders them, whatever the clock's precision.
func TestTimestampsMilliseconds(t *testing.T) {
	at := time.Date(2026, 12, 1, 20, 0, 25, 553781814, time.UTC)
	if got := ts(at); got != "2026-12-01T20:00:25.553Z" {
		t.Fatalf("ts = %v, want 2026-12-01T20:00:25.553Z", got)
	}
	if got := ts(at.Truncate(time.Second)); got != "2026-12-01T20:00:25.000Z" {
		t.Fatalf("ts = %v, want 2026-12-01T20:00:25.000Z", got)
	}
}

// TestUpdatedAfterIncludesBoundary: updated_after returns what was
// updated on or after the given time, as GitLab documents it.
func TestUpdatedAfterIncludesBoundary(t *testing.T) {
	at := time.Date(2026, 12, 1, 20, 0, 25, 0, time.UTC)
	s := New(Options{Now: func() time.Time { return at }})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	u := s.AddUser("ada", false)
	if _, _, err := s.CreateIssue("acme/platform", u.ID, "bug", "", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateMergeRequest("acme/platform", MergeRequestSpec{SourceBranch: "b", TargetBranch: "main", AuthorID: u.ID}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		after string
		want  int
	}{
		{"2026-12-01T20:00:24Z", 1},
		{"2026-12-01T20:00:25Z", 1},
		{"2026-12-01T20:00:25.000Z", 1},
		{"2026-12-01T20:00:25.001Z", 0},
	} {
		for _, list := range []string{"issues", "merge_requests"} {
			req, _ := http.NewRequest("GET", srv.URL+"/api/v4/projects/1/"+list+"?updated_after="+tc.after, nil)
			req.Header.Set("PRIVATE-TOKEN", s.Token())
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var items []any
			_ = json.NewDecoder(resp.Body).Decode(&items)
			resp.Body.Close()
			if len(items) != tc.want {
				t.Errorf("%s updated_after=%s: %d items, want %d", list, tc.after, len(items), tc.want)
			}
		}
	}
}
