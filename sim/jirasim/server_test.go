package jirasim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// do sends one request to a started server and returns status, headers
// and body.
func do(t *testing.T, base, method, path, auth, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func started(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	s := New(opts)
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		http.DefaultClient.CloseIdleConnections()
	})
	return s, base
}

func TestAuth(t *testing.T) {
	_, base := started(t, Options{})
	_, base2 := started(t, Options{RequiredToken: "good"})
	tests := []struct {
		base, auth string
		want       int
	}{
		{base, "", 401},
		{base, "Bearer anything", 200},
		{base, "Basic " + b64("me@example.com:any"), 200},
		{base, "Basic !!!", 401},
		{base, "Digest x", 401},
		{base2, "Bearer bad", 401},
		{base2, "Bearer good", 200},
		{base2, "Basic " + b64("me@example.com:good"), 200},
		{base2, "Basic " + b64("me@example.com:bad"), 401},
	}
	for i, tc := range tests {
		code, _, body := do(t, tc.base, "GET", "/rest/api/3/myself", tc.auth, "")
		if code != tc.want {
			t.Errorf("%d: %q -> %d %s, want %d", i, tc.auth, code, body, tc.want)
		}
	}
}

func TestFaultsAndCalls(t *testing.T) {
	s, base := started(t, Options{})
	const myself = "GET /rest/api/3/myself"
	s.InjectFault(Fault{Endpoint: myself, Status: 429, RetryAfter: 1500 * time.Millisecond, Times: 2})
	// A dropped POST is not replayed by net/http (a GET on a reused
	// connection would be).
	s.InjectFault(Fault{Endpoint: "POST /rest/api/3/search/jql", DropConnection: true})
	s.InjectFault(Fault{Endpoint: "GET /rest/api/3/status/{idOrName}", Status: 503, Delay: 20 * time.Millisecond})
	for i := 0; i < 3; i++ {
		code, h, _ := do(t, base, "GET", "/rest/api/3/myself", "Bearer x", "")
		want, wantRA := 429, "2"
		if i == 2 {
			want, wantRA = 200, ""
		}
		if code != want || h.Get("Retry-After") != wantRA {
			t.Errorf("myself #%d: %d Retry-After %q", i, code, h.Get("Retry-After"))
		}
	}
	if code, _, _ := do(t, base, "POST", "/rest/api/3/search/jql", "Bearer x", `{"jql":"x"}`); code != 0 {
		t.Errorf("dropped connection answered %d", code)
	}
	start := time.Now()
	if code, _, _ := do(t, base, "GET", "/rest/api/3/status/Done", "Bearer x", ""); code != 503 || time.Since(start) < 20*time.Millisecond {
		t.Errorf("delayed 503: %d after %v", code, time.Since(start))
	}
	do(t, base, "GET", "/rest/api/3/nope", "Bearer x", "")
	calls := s.Calls()
	if calls[myself] != 3 || calls["GET /rest/api/3/status/{idOrName}"] != 1 || calls["POST /rest/api/3/search/jql"] != 1 || calls["UNMATCHED"] != 1 {
		t.Errorf("calls = %v", calls)
	}
	s.ResetCalls()
	if len(s.Calls()) != 0 {
		t.Error("ResetCalls left counts")
	}
	s.InjectFault(Fault{Status: 500, Times: -1})
	for i := 0; i < 3; i++ {
		if code, _, _ := do(t, base, "GET", "/rest/api/3/myself", "Bearer x", ""); code != 500 {
			t.Errorf("persistent fault #%d: %d", i, code)
		}
	}
	s.ClearFaults()
	if code, _, _ := do(t, base, "GET", "/rest/api/3/myself", "Bearer x", ""); code != 200 {
		t.Errorf("after ClearFaults: %d", code)
	}
}

func TestRetiredSearchGone(t *testing.T) {
	s, base := started(t, Options{})
	s.AddProject("PROJ", "")
	code, _, body := do(t, base, "POST", "/rest/api/3/search", "Bearer x", `{"jql":"project = PROJ"}`)
	if code != 410 || !strings.Contains(body, "/rest/api/3/search/jql") {
		t.Errorf("retired search: %d %s", code, body)
	}
}

func TestSearchReconcileAtMost50(t *testing.T) {
	s, base := started(t, Options{})
	s.AddProject("PROJ", "")
	ids := func(n int) string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint(20000 + i)
		}
		return strings.Join(out, ",")
	}
	if code, _, body := do(t, base, "POST", "/rest/api/3/search/jql", "Bearer x",
		`{"jql":"project = PROJ","reconcileIssues":[`+ids(50)+`]}`); code != 200 {
		t.Errorf("50 reconcile ids: %d %s", code, body)
	}
	code, _, body := do(t, base, "POST", "/rest/api/3/search/jql", "Bearer x",
		`{"jql":"project = PROJ","reconcileIssues":[`+ids(51)+`]}`)
	if code != 400 || !strings.Contains(body, "50") {
		t.Errorf("51 reconcile ids: %d %s, want 400 naming the limit", code, body)
	}
}

func TestPropertyStatusCodes(t *testing.T) {
	s, base := started(t, Options{})
	key := s.AddIssue(IssueSpec{Project: "PROJ"})
	p := "/rest/api/3/issue/" + key + "/properties/lock"
	steps := []struct {
		method, path, body string
		want               int
	}{
		{"GET", p, "", 404},
		{"PUT", p, `{"a":1}`, 201},
		{"PUT", p, `{"a":2}`, 200},
		{"GET", p, "", 200},
		{"PUT", p, ``, 400},
		{"PUT", p, `{bad`, 400},
		{"PUT", p, `{"a":1} trailing`, 400},
		{"PUT", p, `"` + strings.Repeat("é", 32767) + `"`, 400}, // 32769 characters with quotes
		{"PUT", p, `"` + strings.Repeat("é", 32766) + `"`, 200},
		{"PUT", "/rest/api/3/issue/" + key + "/properties/" + strings.Repeat("k", 256), `1`, 400},
		{"DELETE", p, "", 204},
		{"DELETE", p, "", 404},
		{"PUT", "/rest/api/3/issue/NOPE-1/properties/lock", `1`, 404},
		{"GET", "/rest/api/3/issue/" + s.IssueID(key) + "/properties/lock", "", 404},
	}
	for i, st := range steps {
		code, _, body := do(t, base, st.method, st.path, "Bearer x", st.body)
		if code != st.want {
			t.Errorf("step %d %s: %d %.100s, want %d", i, st.method, code, body, st.want)
		}
	}
	s.SetPropertyDirect(key, "lock", json.RawMessage(`{"id":"direct"}`))
	_, _, body := do(t, base, "GET", "/rest/api/3/issue/"+s.IssueID(key)+"/properties/lock", "Bearer x", "")
	if body != `{"key":"lock","value":{"id":"direct"}}` {
		t.Errorf("by id: %s", body)
	}
	s.DeleteIssue(key)
	if code, _, _ := do(t, base, "GET", p, "Bearer x", ""); code != 404 {
		t.Errorf("deleted issue property: %d", code)
	}
}

func TestCommentsAndChangelogPaging(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); now = now.Add(time.Second); return now }
	s, base := started(t, Options{Now: clock})
	key := s.AddIssue(IssueSpec{Project: "PROJ"})
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, s.AddComment(key, "u1", fmt.Sprintf("c%d", i)))
		s.SetField(key, "customfield_1", fmt.Sprint(i), "u1")
	}
	s.EditComment(key, ids[0], "u2", "edited")
	type page struct {
		Total    int `json:"total"`
		Comments []struct {
			ID      string          `json:"id"`
			Body    json.RawMessage `json:"body"`
			Created string          `json:"created"`
			Updated string          `json:"updated"`
		} `json:"comments"`
		Values []struct {
			Items []map[string]string `json:"items"`
		} `json:"values"`
		IsLast bool `json:"isLast"`
	}
	get := func(path string) page {
		code, _, body := do(t, base, "GET", path, "Bearer x", "")
		var p page
		if code != 200 || json.Unmarshal([]byte(body), &p) != nil {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		return p
	}
	p := get("/rest/api/3/issue/" + key + "/comment?orderBy=-created&startAt=1&maxResults=2")
	if p.Total != 5 || len(p.Comments) != 2 || p.Comments[0].ID != ids[3] || p.Comments[1].ID != ids[2] {
		t.Errorf("newest-first page = %+v", p)
	}
	p = get("/rest/api/3/issue/" + key + "/comment")
	if p.Comments[0].ID != ids[0] || p.Comments[0].Updated == p.Comments[0].Created || !strings.Contains(string(p.Comments[0].Body), "edited") {
		t.Errorf("edited comment = %+v", p.Comments[0])
	}
	if code, _, _ := do(t, base, "GET", "/rest/api/3/issue/"+key+"/comment?orderBy=name", "Bearer x", ""); code != 400 {
		t.Errorf("bad orderBy: %d", code)
	}
	if code, _, _ := do(t, base, "GET", "/rest/api/3/issue/"+key+"/comment?startAt=-1", "Bearer x", ""); code != 400 {
		t.Errorf("bad startAt: %d", code)
	}
	p = get("/rest/api/3/issue/" + key + "/changelog?startAt=3&maxResults=10")
	if len(p.Values) != 2 || !p.IsLast || p.Values[0].Items[0]["toString"] != "3" || p.Values[0].Items[0]["fromString"] != "2" {
		t.Errorf("changelog page = %+v", p)
	}
}

func TestBulkFetchPaging(t *testing.T) {
	s, base := started(t, Options{})
	a := s.AddIssue(IssueSpec{Project: "PROJ"})
	b := s.AddIssue(IssueSpec{Project: "PROJ"})
	for i := 0; i < 3; i++ {
		s.AddLabel(a, fmt.Sprint("a", i), "u1")
		s.AddLabel(b, fmt.Sprint("b", i), "u1")
	}
	s.SetStatus(b, "Done", "u1")
	type resp struct {
		Logs []struct {
			IssueID string            `json:"issueId"`
			Hist    []json.RawMessage `json:"changeHistories"`
		} `json:"issueChangeLogs"`
		Next string `json:"nextPageToken"`
	}
	var all []string
	token := ""
	for pages := 0; pages < 10; pages++ {
		body := fmt.Sprintf(`{"issueIdsOrKeys":[%q,%q,"NOPE-9"],"maxResults":4,"nextPageToken":%q}`, a, b, token)
		code, _, out := do(t, base, "POST", "/rest/api/3/changelog/bulkfetch", "Bearer x", body)
		var r resp
		if code != 200 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("%d %s", code, out)
		}
		for _, l := range r.Logs {
			for range l.Hist {
				all = append(all, l.IssueID)
			}
		}
		if r.Next == "" {
			break
		}
		token = r.Next
	}
	if len(all) != 7 || all[0] != s.IssueID(a) || all[6] != s.IssueID(b) {
		t.Errorf("histories by issue = %v", all)
	}
	code, _, out := do(t, base, "POST", "/rest/api/3/changelog/bulkfetch", "Bearer x", fmt.Sprintf(`{"issueIdsOrKeys":[%q],"fieldIds":["status"]}`, b))
	if code != 200 || strings.Count(out, `"fieldId"`) != 1 {
		t.Errorf("filtered: %d %s", code, out)
	}
	for _, bad := range []string{`{"issueIdsOrKeys":[]}`, `{"issueIdsOrKeys":["A-1"],"maxResults":0}`, `{"issueIdsOrKeys":["A-1"],"fieldIds":["1","2","3","4","5","6","7","8","9","10","11"]}`, `{"issueIdsOrKeys":["A-1"],"nextPageToken":"zzz"}`} {
		if code, _, _ := do(t, base, "POST", "/rest/api/3/changelog/bulkfetch", "Bearer x", bad); code != 400 {
			t.Errorf("%s: %d", bad, code)
		}
	}
}

func TestRolesStatusMyself(t *testing.T) {
	s, base := started(t, Options{})
	s.AddProject("PROJ", "")
	s.SetRole("PROJ", "Developers", "dev")
	s.SetRole("PROJ", "QA Team", "qa")
	s.AddStatus("Review", "indeterminate")
	s.SetMyself("me")
	_, _, body := do(t, base, "GET", "/rest/api/3/project/PROJ/role", "Bearer x", "")
	var roles map[string]string
	if json.Unmarshal([]byte(body), &roles) != nil || len(roles) != 4 || !strings.HasPrefix(roles["QA Team"], base+"/rest/api/3/project/") {
		t.Fatalf("roles = %s", body)
	}
	_, _, body = do(t, base, "GET", strings.TrimPrefix(roles["QA Team"], base), "Bearer x", "")
	if !strings.Contains(body, `"actorUser":{"accountId":"qa"}`) || strings.Contains(body, `"dev"`) {
		t.Errorf("QA Team role = %s", body)
	}
	if code, _, _ := do(t, base, "GET", "/rest/api/3/project/PROJ/role/999", "Bearer x", ""); code != 404 {
		t.Errorf("unknown role id: %d", code)
	}
	_, _, body = do(t, base, "GET", "/rest/api/3/status/review", "Bearer x", "")
	if !strings.Contains(body, `"key":"indeterminate"`) {
		t.Errorf("status = %s", body)
	}
	_, _, body = do(t, base, "GET", "/rest/api/3/myself", "Bearer x", "")
	if !strings.Contains(body, `"accountId":"me"`) {
		t.Errorf("myself = %s", body)
	}
}

func TestConcurrentWorldAndHTTP(t *testing.T) {
	s, base := started(t, Options{SearchLag: time.Millisecond})
	key := s.AddIssue(IssueSpec{Project: "PROJ"})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				s.AddLabel(key, fmt.Sprint("l", w, i), "u")
				s.AddComment(key, "u", "hi")
				do(t, base, "PUT", "/rest/api/3/issue/"+key+"/properties/p"+fmt.Sprint(w), "Bearer x", fmt.Sprint(i))
				do(t, base, "POST", "/rest/api/3/search/jql", "Bearer x", `{"jql":"project = PROJ","properties":["p0"]}`)
			}
		}(w)
	}
	wg.Wait()
	if n := s.Calls()["PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"]; n != 80 {
		t.Errorf("PUT calls = %d", n)
	}
	if v, ok := s.Property(key, "p3"); !ok || string(v) != "19" {
		t.Errorf("p3 = %s %v", v, ok)
	}
}

func TestListenRefusesNonLoopback(t *testing.T) {
	s := New(Options{})
	if _, err := s.Listen("0.0.0.0:0"); err == nil {
		s.Close()
		t.Fatal("listened on a non-loopback address")
	}
}

func TestSeed(t *testing.T) {
	good := `{"myself":"bot","projects":[{"key":"PROJ","name":"Platform"}],
	 "statuses":[{"name":"Review","category":"indeterminate"}],
	 "users":[{"accountId":"u1","displayName":"Alice","accountType":"atlassian"}],
	 "roles":[{"project":"PROJ","role":"Developers","accountId":"u1"}],
	 "issues":[{"project":"PROJ","summary":"first","labels":["bug"],"status":"Review","reporter":"u1","created":"2024-05-02T10:11:12Z",
	   "comments":[{"author":"u1","text":"/fs-triage please"}],"properties":{"x":{"a":1}}}]}`
	sd, err := ParseSeed(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{})
	keys, err := s.ApplySeed(sd)
	if err != nil || len(keys) != 1 || keys[0] != "PROJ-1" {
		t.Fatalf("apply: %v %v", keys, err)
	}
	if v, ok := s.Property("PROJ-1", "x"); !ok || string(v) != `{"a":1}` {
		t.Errorf("property = %s", v)
	}
	got, msg, _ := search(t, s, jqlBody(`status = Review AND labels = bug`))
	if len(got) != 1 {
		t.Errorf("seeded issue not searchable: %v %s", got, msg)
	}
	bad := []struct{ in, want string }{
		{`{"projects":[{"key":"1x"}]}`, "projects[0]: invalid key"},
		{`{"projects":[],"issues":[{"project":"NOPE"}]}`, "issues[0]: project \"NOPE\" is not declared"},
		{`{"projects":[{"key":"PROJ"}],"issues":[{"project":"PROJ","status":"Weird"}]}`, "unknown status"},
		{`{"projects":[{"key":"PROJ"}],"issues":[{"project":"PROJ","comments":[{"text":"x"}]}]}`, "comments[0]: missing author"},
		{`{"extra":1}`, "unknown field"},
		{`{"projects":[{"key":5}]}`, "projects.key"},
		{`{"projects":[`, "seed"},
		{`{} {}`, "trailing data"},
		{`{"statuses":[{"name":"X","category":"odd"}]}`, "statuses[0]"},
	}
	for _, tc := range bad {
		if _, err := ParseSeed(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseSeed(f *testing.F) {
	f.Add(`{"projects":[{"key":"PROJ"}],"issues":[{"project":"PROJ","comments":[{"author":"a","text":"t"}]}]}`)
	f.Add(`{"roles":[{"project":"X"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		sd, err := ParseSeed(strings.NewReader(in))
		if err != nil {
			return
		}
		if _, err := New(Options{}).ApplySeed(sd); err != nil {
			t.Errorf("validated seed failed to apply: %v", err)
		}
	})
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
