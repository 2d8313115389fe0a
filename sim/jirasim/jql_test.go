package jirasim

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// search runs a search through the handler and returns the keys or the
// first error message.
func search(t *testing.T, s *Server, body string) ([]string, string, int) {
	t.Helper()
	req := httptest.NewRequest("POST", "/rest/api/3/search/jql", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer x")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	var resp struct {
		Issues []struct {
			Key string `json:"key"`
		} `json:"issues"`
		ErrorMessages []string `json:"errorMessages"`
		NextPageToken string   `json:"nextPageToken"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatalf("search %s: undecodable %q", body, rec.Body.String())
	}
	var keys []string
	for _, is := range resp.Issues {
		keys = append(keys, is.Key)
	}
	msg := ""
	if len(resp.ErrorMessages) > 0 {
		msg = resp.ErrorMessages[0]
	}
	if resp.NextPageToken != "" {
		keys = append(keys, "token:"+resp.NextPageToken)
	}
	return keys, msg, rec.Code
}

func jqlBody(jql string) string {
	b, _ := json.Marshal(map[string]any{"jql": jql})
	return string(b)
}

// jqlWorld: PR-1 (bug, To Do, created t0), PR-2 (no labels, In Progress,
// created t0+1h), PR-3 (bug+ui, Done, created t0+2h), QA-1 (ui, To Do, t0+3h).
func jqlWorld(t *testing.T) (*Server, time.Time) {
	t0 := time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC)
	now := t0.Add(4 * time.Hour)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		berlin = time.FixedZone("CEST", 2*3600)
	}
	s := New(Options{Now: func() time.Time { return now }, UserTimeZone: berlin})
	s.AddProject("PR", "Platform")
	s.AddProject("QA", "Quality")
	s.AddIssue(IssueSpec{Project: "PR", Labels: []string{"bug"}, Created: t0})
	s.AddIssue(IssueSpec{Project: "PR", Status: "In Progress", Created: t0.Add(time.Hour)})
	s.AddIssue(IssueSpec{Project: "PR", Labels: []string{"bug", "ui"}, Status: "Done", Created: t0.Add(2 * time.Hour)})
	s.AddIssue(IssueSpec{Project: "QA", Labels: []string{"ui"}, Created: t0.Add(3 * time.Hour)})
	return s, t0
}

func TestJQLSubset(t *testing.T) {
	s, t0 := jqlWorld(t)
	ms := func(d time.Duration) string { return strconv.FormatInt(t0.Add(d).UnixMilli(), 10) }
	tests := []struct {
		jql  string
		want []string
	}{
		{"project = PR ORDER BY key ASC", []string{"PR-1", "PR-2", "PR-3"}},
		{`project in (PR, "QA") ORDER BY created DESC`, []string{"QA-1", "PR-3", "PR-2", "PR-1"}},
		{"project = Platform ORDER BY key", []string{"PR-1", "PR-2", "PR-3"}},
		{"statusCategory != Done ORDER BY key", []string{"PR-1", "PR-2", "QA-1"}},
		{`statusCategory in ("To Do", indeterminate) AND project = PR ORDER BY key`, []string{"PR-1", "PR-2"}},
		{`status = "In Progress"`, []string{"PR-2"}},
		{"labels = bug ORDER BY key", []string{"PR-1", "PR-3"}},
		{"labels != bug ORDER BY key", []string{"QA-1"}},
		{"labels in (ui, nope) ORDER BY key", []string{"PR-3", "QA-1"}},
		{"labels not in (bug) ORDER BY key", []string{"QA-1"}},
		{"labels is EMPTY", []string{"PR-2"}},
		{"labels is not empty AND project = QA", []string{"QA-1"}},
		{"key in (PR-1, qa-1) ORDER BY key", []string{"PR-1", "QA-1"}},
		{"issuekey = PR-2", []string{"PR-2"}},
		{"created >= " + ms(2*time.Hour) + " ORDER BY key", []string{"PR-3", "QA-1"}},
		{"created > " + ms(2*time.Hour), []string{"QA-1"}},
		{"updated < " + ms(time.Hour), []string{"PR-1"}},
		{`created >= "2024-05-02 14:00" ORDER BY key`, []string{"PR-3", "QA-1"}}, // 14:00 Berlin = 12:00 UTC
		{`created >= "2024/05/03" ORDER BY key`, nil},
		{"created >= -90m", []string{"QA-1"}},
		{`created >= "-2h 30m" ORDER BY key`, []string{"PR-3", "QA-1"}},
		{"project = PR AND (labels = ui OR status = 'In Progress') ORDER BY key", []string{"PR-2", "PR-3"}},
		{"project = QA OR labels = bug AND statusCategory = Done ORDER BY key", []string{"PR-3", "QA-1"}},
		{"NOT project = PR", []string{"QA-1"}},
		{"project = PR && labels = bug || key = QA-1 ORDER BY key", []string{"PR-1", "PR-3", "QA-1"}},
	}
	for _, tc := range tests {
		got, msg, code := search(t, s, jqlBody(tc.jql))
		if code != 200 || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v (%d %s), want %v", tc.jql, got, code, msg, tc.want)
		}
	}
}

// keyWorld is two projects whose issues interleave by id, QA-1, PR-1,
// QA-2, PR-2 all created at t0, then PR-3 a millisecond later, under the
// reading k.
func keyWorld(k KeyComparison) (*Server, time.Time) {
	t0 := time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC)
	s := New(Options{Now: func() time.Time { return t0.Add(time.Hour) }, KeyComparison: k})
	s.AddProject("PR", "Platform")
	s.AddProject("QA", "Quality")
	for _, p := range []string{"QA", "PR", "QA", "PR"} {
		s.AddIssue(IssueSpec{Project: p, Created: t0})
	}
	s.AddIssue(IssueSpec{Project: "PR", Created: t0.Add(time.Millisecond)})
	return s, t0
}

// TestJQLKeyComparisons: the three readings of id/key/issuekey
// comparisons. Numeric compares ids across projects (any number, existing
// or not) and orders ORDER BY id by id, so that with updated it is a
// keyset through issues updated in one instant; per project (the default)
// compares issue numbers within the operand's project and refuses an
// operand naming no issue (or, per project with empty answers, matches
// nothing for it); rejected refuses every comparison. Equality,
// lists and ORDER BY key mean the same under all three.
func TestJQLKeyComparisons(t *testing.T) {
	type q struct {
		jql  string
		want []string // nil with msg: a 400
		msg  string
	}
	s0, t0 := keyWorld(KeysNumeric)
	id := func(key string) string { return s0.IssueID(key) }
	ms := strconv.FormatInt(t0.UnixMilli(), 10)
	after := func(key string) string { // the numeric keyset: after (t0, key's id)
		return "updated >= " + ms + " AND (updated > " + ms + " OR id > " + id(key) + ")"
	}
	same := []q{
		{"updated >= " + ms + " ORDER BY updated ASC, key ASC", []string{"PR-1", "PR-2", "QA-1", "QA-2", "PR-3"}, ""},
		{"id in (" + id("QA-2") + ", PR-3) ORDER BY key", []string{"PR-3", "QA-2"}, ""},
		{"id not in (" + id("QA-2") + ") AND project = QA", []string{"QA-1"}, ""},
		{"id = PR-2", []string{"PR-2"}, ""},
		{"issuekey != PR-2 AND project = PR ORDER BY key", []string{"PR-1", "PR-3"}, ""},
	}
	cases := []struct {
		k     KeyComparison
		tests []q
	}{
		{KeysNumeric, []q{
			{"updated >= " + ms + " ORDER BY updated ASC, id ASC", []string{"QA-1", "PR-1", "QA-2", "PR-2", "PR-3"}, ""},
			{"updated >= " + ms + " ORDER BY updated DESC, id DESC", []string{"PR-3", "PR-2", "QA-2", "PR-1", "QA-1"}, ""},
			{after("PR-1") + " ORDER BY updated ASC, id ASC", []string{"QA-2", "PR-2", "PR-3"}, ""},
			{after("PR-2") + " ORDER BY updated ASC, id ASC", []string{"PR-3"}, ""},
			{"updated = " + ms + " AND id > " + id("QA-1") + " ORDER BY id", []string{"PR-1", "QA-2", "PR-2"}, ""},
			{"id >= " + id("PR-2") + " ORDER BY id", []string{"PR-2", "PR-3"}, ""},
			{"id < " + id("PR-1") + " ORDER BY id", []string{"QA-1"}, ""},
			{"id <= " + id("PR-1") + " AND id != " + id("QA-1"), []string{"PR-1"}, ""},
			{"key > QA-1 ORDER BY id", []string{"PR-1", "QA-2", "PR-2", "PR-3"}, ""},
			{"id > 0 AND project = QA ORDER BY id", []string{"QA-1", "QA-2"}, ""},
			{"id > 99999999", nil, ""},
			{"key > QA-9", nil, "An issue with key 'QA-9' does not exist for field 'key'."},
		}},
		{KeysPerProject, []q{
			{"updated >= " + ms + " ORDER BY updated ASC, id ASC", []string{"PR-1", "PR-2", "QA-1", "QA-2", "PR-3"}, ""},
			{after("PR-1") + " ORDER BY updated ASC, id ASC", []string{"PR-2", "PR-3"}, ""}, // QA-2 is lost
			{"id > " + id("QA-1") + " ORDER BY id", []string{"QA-2"}, ""},
			{"issuekey >= PR-2 ORDER BY key", []string{"PR-2", "PR-3"}, ""},
			{"key < pr-3 ORDER BY key", []string{"PR-1", "PR-2"}, ""},
			{"id <= " + id("QA-1"), []string{"QA-1"}, ""},
			{"id > 0", nil, "An issue with key '0' does not exist for field 'id'."},
			{"key > QA-9", nil, "An issue with key 'QA-9' does not exist for field 'key'."},
		}},
		{KeysPerProjectEmpty, []q{
			{after("PR-1") + " ORDER BY updated ASC, id ASC", []string{"PR-2", "PR-3"}, ""},
			{"id > 0", nil, ""},
			{"NOT id > 0 AND project = QA ORDER BY key", []string{"QA-1", "QA-2"}, ""},
			{"key >= QA-9", nil, ""},
			{"issuekey >= PR-2 ORDER BY key", []string{"PR-2", "PR-3"}, ""},
		}},
		{KeysRejected, []q{
			{"updated >= " + ms + " ORDER BY updated ASC, id ASC", []string{"PR-1", "PR-2", "QA-1", "QA-2", "PR-3"}, ""},
			{"id > 0", nil, "The operator '>' is not supported by the 'id' field."},
			{"project = PR AND issueKey <= PR-2", nil, "The operator '<=' is not supported by the 'issueKey' field."},
			{after("PR-1"), nil, "The operator '>' is not supported by the 'id' field."},
		}},
	}
	for _, tc := range cases {
		t.Run(map[KeyComparison]string{KeysNumeric: "numeric", KeysPerProject: "per project", KeysPerProjectEmpty: "per project, empty", KeysRejected: "rejected"}[tc.k], func(t *testing.T) {
			s, _ := keyWorld(tc.k)
			if s.IssueID("PR-1") != id("PR-1") {
				t.Fatal("the worlds differ")
			}
			for _, q := range append(tc.tests, same...) {
				got, msg, code := search(t, s, jqlBody(q.jql))
				switch {
				case q.msg != "" && (code != 400 || msg != q.msg):
					t.Errorf("%s: %d %q, want 400 %q", q.jql, code, msg, q.msg)
				case q.msg == "" && (code != 200 || !slices.Equal(got, q.want)):
					t.Errorf("%s: got %v (%d %s), want %v", q.jql, got, code, msg, q.want)
				}
			}
			if got := s.SearchJQL(); len(got) != len(tc.tests)+len(same) || got[0] != tc.tests[0].jql {
				t.Errorf("SearchJQL = %q", got)
			}
		})
	}
}

func TestJQLErrors(t *testing.T) {
	s, _ := jqlWorld(t)
	tests := []struct{ jql, want string }{
		{"", "Unbounded JQL"},
		{"ORDER BY created", "Unbounded JQL"},
		{"project = NOPE", "The value 'NOPE' does not exist for the field 'project'."},
		{"status = Weird", "does not exist for the field 'status'"},
		{"assignee = me", "Field 'assignee' does not exist"},
		{"project = PR AND", "Expecting a field name before the end"},
		{"project PR", "Expecting operator but got 'PR'"},
		{"project = PR ORDER BY nope", "Field 'nope' does not exist"},
		{`summary ~ "x"`, "Field 'summary' does not exist"},
		{"labels > a", "operator '>' is not supported"},
		{`project = "P`, "not terminated"},
		{"updated >= tomorrow", "Date value 'tomorrow'"},
		{"key = PR-99", "An issue with key 'PR-99' does not exist"},
		{"key = 12x", "is invalid"},
		{"project = currentUser()", "Unable to find JQL function"},
		{"project = PR ) ", "Expecting either 'OR' or 'AND'"},
		{"project = PR ; x", "reserved JQL character"},
		{strings.Repeat("(", 200) + "project = PR" + strings.Repeat(")", 200), "nested too deeply"},
	}
	for _, tc := range tests {
		_, msg, code := search(t, s, jqlBody(tc.jql))
		if code != 400 || !strings.Contains(msg, tc.want) {
			t.Errorf("%q: %d %q, want 400 containing %q", tc.jql, code, msg, tc.want)
		}
	}
}

func TestSearchPagesAndTokens(t *testing.T) {
	s, _ := jqlWorld(t)
	body := `{"jql":"project = PR ORDER BY key","maxResults":2}`
	got, _, _ := search(t, s, body)
	if len(got) != 3 || !strings.HasPrefix(got[2], "token:") {
		t.Fatalf("first page = %v", got)
	}
	tok := strings.TrimPrefix(got[2], "token:")
	next, _, _ := search(t, s, `{"jql":"project = PR ORDER BY key","maxResults":2,"nextPageToken":"`+tok+`"}`)
	if !slices.Equal(next, []string{"PR-3"}) {
		t.Errorf("second page = %v", next)
	}
	_, msg, code := search(t, s, `{"jql":"project = QA","maxResults":2,"nextPageToken":"`+tok+`"}`)
	if code != 400 || !strings.Contains(msg, "nextPageToken") {
		t.Errorf("token reused for another query: %d %s", code, msg)
	}
	_, msg, code = search(t, s, `{"jql":"project = PR","bogus":1}`)
	if code != 400 || !strings.Contains(msg, "bogus") {
		t.Errorf("unknown request field: %d %s", code, msg)
	}
	_, msg, code = search(t, s, `{"jql":"project = PR","properties":["a","b","c","d","e","f"]}`)
	if code != 400 || !strings.Contains(msg, "at most 5") {
		t.Errorf("six properties: %d %s", code, msg)
	}
}

func TestSearchFieldsPropertiesChangelog(t *testing.T) {
	s, _ := jqlWorld(t)
	s.SetPropertyDirect("PR-1", "lock", json.RawMessage(`{"id":"u"}`))
	s.AddLabel("PR-1", "x", "u1")
	req := httptest.NewRequest("POST", "/rest/api/3/search/jql", bytes.NewReader([]byte(
		`{"jql":"key = PR-1","fields":["summary","status","-status","labels"],"properties":["lock","none"],"expand":"changelog"}`)))
	req.Header.Set("Authorization", "Basic dTpw")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	var resp struct {
		Issues []struct {
			Fields     map[string]json.RawMessage `json:"fields"`
			Properties map[string]json.RawMessage `json:"properties"`
			Changelog  struct {
				Total     int `json:"total"`
				Histories []struct {
					Items []map[string]string `json:"items"`
				} `json:"histories"`
			} `json:"changelog"`
		} `json:"issues"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || len(resp.Issues) != 1 {
		t.Fatalf("%v %s", err, rec.Body)
	}
	is := resp.Issues[0]
	if _, ok := is.Fields["status"]; ok || string(is.Fields["labels"]) != `["bug","x"]` || len(is.Fields) != 2 {
		t.Errorf("fields = %v", is.Fields)
	}
	if string(is.Properties["lock"]) != `{"id":"u"}` || len(is.Properties) != 1 {
		t.Errorf("properties = %v", is.Properties)
	}
	if is.Changelog.Total != 1 || is.Changelog.Histories[0].Items[0]["toString"] != "bug x" {
		t.Errorf("changelog = %+v", is.Changelog)
	}
}

func FuzzParseJQL(f *testing.F) {
	for _, q := range []string{"project = PR AND (labels in (a, \"b\") OR updated >= -5m) ORDER BY created DESC",
		"key in (PR-1)", "labels is not EMPTY", `created <= "2024/01/02 10:00"`, "NOT NOT x = 1", "((", "'", "a ! b", "updated >= 1714644672000"} {
		f.Add(q)
	}
	s, _ := jqlWorld(&testing.T{})
	f.Fuzz(func(t *testing.T, q string) {
		_, _, code := search(t, s, jqlBody(q))
		if code != http.StatusOK && code != http.StatusBadRequest {
			t.Errorf("%q: status %d", q, code)
		}
	})
}

func jiraUser(id, name string) User { return User{AccountID: id, DisplayName: name} }
