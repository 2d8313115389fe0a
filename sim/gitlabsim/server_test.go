package gitlabsim

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type client struct {
	t    *testing.T
	base string
	tok  string
	hc   *http.Client
}

func start(t *testing.T, o Options) (*Server, *client) {
	t.Helper()
	s := New(o)
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() { tr.CloseIdleConnections(); s.Close() })
	return s, &client{t: t, base: base + "/api/v4", tok: s.Token(), hc: &http.Client{Transport: tr, Timeout: 5 * time.Second}}
}

// do sends a request and decodes a JSON body into out (when non-nil).
func (c *client) do(method, path, body string, out any) *http.Response {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if c.tok != "" {
		req.Header.Set("PRIVATE-TOKEN", c.tok)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return resp
}

const nested = "/projects/grp%2Fsub%2Fproj"

func create(c *client, key string) map[string]any {
	var p map[string]any
	body := `{"ref":"main","variables":[{"key":"FULLSEND_RESOURCE_KEY","value":"` + key + `"}]}`
	if r := c.do("POST", nested+"/pipeline", body, &p); r.StatusCode != http.StatusCreated {
		c.t.Fatalf("create: %d", r.StatusCode)
	}
	return p
}

func TestAuth(t *testing.T) {
	_, c := start(t, Options{Projects: []string{"grp/sub/proj"}, Token: "secret"})
	tests := []struct {
		name   string
		header string
		value  string
		want   int
	}{
		{"private token", "PRIVATE-TOKEN", "secret", 200},
		{"bearer", "Authorization", "Bearer secret", 200},
		{"wrong", "PRIVATE-TOKEN", "nope", 401},
		{"none", "", "", 401},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest("GET", c.base+nested+"/pipelines", nil)
		if tc.header != "" {
			req.Header.Set(tc.header, tc.value)
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
}

func TestResourceGroupLifecycle(t *testing.T) {
	s, c := start(t, Options{Projects: []string{"grp/sub/proj"}})
	a, b, x := create(c, "k1"), create(c, "k1"), create(c, "k2")
	if a["status"] != StatusPending || b["status"] != StatusWaitingForResource || x["status"] != StatusPending {
		t.Fatalf("statuses %v %v %v", a["status"], b["status"], x["status"])
	}
	if a["name"] != "fullsend:k1" || !strings.HasSuffix(a["web_url"].(string), "/grp/sub/proj/-/pipelines/1") {
		t.Fatalf("name %v url %v", a["name"], a["web_url"])
	}
	c3 := create(c, "k1")
	var g map[string]any
	if r := c.do("PUT", nested+"/resource_groups/fullsend-k1", `{"process_mode":"newest_first"}`, &g); r.StatusCode != 200 || g["process_mode"] != ModeNewestFirst {
		t.Fatalf("edit: %d %v", r.StatusCode, g)
	}
	if r := c.do("PUT", nested+"/resource_groups/fullsend-k1", `{"process_mode":"fifo"}`, nil); r.StatusCode != 400 {
		t.Fatalf("bad mode: %d", r.StatusCode)
	}
	if w := s.Waiting("grp/sub/proj", "fullsend-k1"); len(w) != 2 || w[0].ID != int64(b["id"].(float64)) || w[1].ID != int64(c3["id"].(float64)) {
		t.Fatalf("waiting (every waiter kept): %+v", w)
	}
	var up []map[string]any
	c.do("GET", nested+"/resource_groups/fullsend-k1/upcoming_jobs", "", &up)
	if len(up) != 2 || up[0]["pipeline"].(map[string]any)["id"] != c3["id"] {
		t.Fatalf("upcoming jobs (newest first): %v", up)
	}
	// Cancelling the holder's job hands the group to the newest waiter.
	var jobs []map[string]any
	c.do("GET", nested+"/pipelines/1/jobs", "", &jobs)
	if r := c.do("POST", nested+"/jobs/"+jsonID(jobs[0]["id"])+"/cancel", "", nil); r.StatusCode != 201 {
		t.Fatalf("cancel job: %d", r.StatusCode)
	}
	if p, _ := s.Pipeline(int64(c3["id"].(float64))); p.Status != StatusPending {
		t.Fatalf("newest waiter is %s, want pending", p.Status)
	}
	if cs := s.Cancels(); len(cs) != 1 || cs[0].PriorStatus != StatusPending || cs[0].Via != "job" {
		t.Fatalf("cancels %+v", cs)
	}
	// Cancelling a finished pipeline changes nothing.
	c.do("POST", nested+"/pipelines/1/cancel", "", nil)
	if len(s.Cancels()) != 1 {
		t.Fatal("cancel of a finished pipeline was recorded")
	}
}

// jsonID renders a decoded JSON number as an integer string.
func jsonID(v any) string { return strconv.FormatInt(int64(v.(float64)), 10) }

func TestListFiltersAndPagination(t *testing.T) {
	_, c := start(t, Options{Projects: []string{"grp/sub/proj"}})
	for i := 0; i < 5; i++ {
		create(c, "k1")
	}
	create(c, "k2")
	tests := []struct {
		query     string
		wantIDs   string
		wantNext  string
		wantTotal string
		status    int
	}{
		{"name=fullsend:k1&status=waiting_for_resource&per_page=2", "5,4", "2", "4", 200},
		{"name=fullsend:k1&status=waiting_for_resource&per_page=2&page=2", "3,2", "", "4", 200},
		{"name=fullsend:k1&sort=asc&order_by=id&per_page=100", "1,2,3,4,5", "", "5", 200},
		{"name=fullsend:k2", "6", "", "1", 200},
		{"status=pending", "6,1", "", "2", 200},
		{"scope=pending&ref=main", "6,1", "", "2", 200},
		{"ref=other", "", "", "0", 200},
		{"status=bogus", "", "", "", 400},
		{"order_by=name", "", "", "", 400},
		{"sort=up", "", "", "", 400},
		{"per_page=0", "", "", "", 400},
	}
	for _, tc := range tests {
		var ps []map[string]any
		r := c.do("GET", nested+"/pipelines?"+tc.query, "", &ps)
		if r.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.query, r.StatusCode, tc.status)
			continue
		}
		if tc.status != 200 {
			continue
		}
		var ids []string
		for _, p := range ps {
			ids = append(ids, jsonID(p["id"]))
		}
		if strings.Join(ids, ",") != tc.wantIDs || r.Header.Get("X-Next-Page") != tc.wantNext || r.Header.Get("X-Total") != tc.wantTotal {
			t.Errorf("%s: ids %v next %q total %q", tc.query, ids, r.Header.Get("X-Next-Page"), r.Header.Get("X-Total"))
		}
	}
}

func TestCreateValidation(t *testing.T) {
	_, c := start(t, Options{Projects: []string{"grp/sub/proj"}})
	tests := []struct {
		path, body string
		want       int
	}{
		{nested + "/pipeline", `{"ref":"main"}`, 201},
		{"/projects/1/pipeline", `{"ref":"main"}`, 201},
		{nested + "/pipeline", `{"ref":"nope"}`, 400},
		{nested + "/pipeline", `{}`, 400},
		{nested + "/pipeline", `not json`, 400},
		{nested + "/pipeline", `{"ref":"main","variables":[{"value":"x"}]}`, 400},
		{nested + "/pipeline", `{"ref":"main","variables":[{"key":"A","variable_type":"weird"}]}`, 400},
		{"/projects/grp%2Fother/pipeline", `{"ref":"main"}`, 404},
		{nested + "/unknown", `{}`, 404},
	}
	for _, tc := range tests {
		if r := c.do("POST", tc.path, tc.body, nil); r.StatusCode != tc.want {
			t.Errorf("POST %s %s: %d, want %d", tc.path, tc.body, r.StatusCode, tc.want)
		}
	}
}

func TestRateLimitAndFaults(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	s, c := start(t, Options{Projects: []string{"grp/sub/proj"}, RateLimit: 3, Now: func() time.Time { return now }})
	r := c.do("GET", nested+"/pipelines", "", nil)
	if r.Header.Get("RateLimit-Limit") != "3" || r.Header.Get("RateLimit-Remaining") != "2" || r.Header.Get("RateLimit-Reset") != "1700000060" {
		t.Fatalf("headers %v", r.Header)
	}
	c.do("GET", nested+"/pipelines", "", nil)
	c.do("GET", nested+"/pipelines", "", nil)
	r = c.do("GET", nested+"/pipelines", "", nil)
	if r.StatusCode != 429 || r.Header.Get("Retry-After") != "60" {
		t.Fatalf("over limit: %d retry-after %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
	now = now.Add(time.Minute)
	s.InjectFault(Fault{Endpoint: "create_pipeline", Status: 502, AfterProcess: true})
	s.InjectFault(Fault{Endpoint: "list_pipelines", Status: 503, Times: 1, RetryAfter: "3"})
	if r := c.do("POST", nested+"/pipeline", `{"ref":"main"}`, nil); r.StatusCode != 502 || len(s.Pipelines("grp/sub/proj")) != 1 {
		t.Fatalf("after-process fault: %d, %d pipelines", r.StatusCode, len(s.Pipelines("grp/sub/proj")))
	}
	if r := c.do("GET", nested+"/pipelines", "", nil); r.StatusCode != 503 || r.Header.Get("Retry-After") != "3" {
		t.Fatalf("list fault: %d", r.StatusCode)
	}
	if r := c.do("GET", nested+"/pipelines", "", nil); r.StatusCode != 200 {
		t.Fatalf("fault did not expire: %d", r.StatusCode)
	}
	if s.Calls("list_pipelines") != 5 || s.Calls("create_pipeline") != 1 {
		t.Fatalf("calls list=%d create=%d", s.Calls("list_pipelines"), s.Calls("create_pipeline"))
	}
}

func TestHookRunsBeforeProcessing(t *testing.T) {
	s, c := start(t, Options{Projects: []string{"grp/sub/proj"}, ManualAssign: true})
	create(c, "k")
	create(c, "k")
	s.SetHook("cancel_pipeline", func(*http.Request) {
		if _, err := s.Acquire("grp/sub/proj", "fullsend-k"); err != nil {
			t.Error(err)
		}
	})
	c.do("POST", nested+"/pipelines/1/cancel", "", nil)
	if cs := s.Cancels(); len(cs) != 1 || cs[0].PriorStatus != StatusPending {
		t.Fatalf("the hook must run before the cancel: %+v", cs)
	}
	if p, _ := s.Pipeline(2); p.Status != StatusWaitingForResource {
		t.Fatalf("manual assign: second pipeline is %s", p.Status)
	}
	if id, _ := s.Acquire("grp/sub/proj", "fullsend-k"); id != 2 {
		t.Fatalf("Acquire = job %d, want 2", id)
	}
	if err := s.FinishJob(2, "canceled"); err == nil {
		t.Fatal("FinishJob accepted a non-final status")
	}
	if _, err := s.StartAt("10.0.0.1:0"); err == nil {
		t.Fatal("non-loopback address accepted")
	}
}

func FuzzParseRoute(f *testing.F) {
	for _, p := range []string{"/api/v4/projects/1/pipelines", "/api/v4/projects/a%2Fb/pipelines/3/cancel", "/api/v4/projects/%zz", "/api/v4/projects//x"} {
		f.Add("GET", p)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		rt, ok := parseRoute(method, path)
		if ok && (rt.endpoint == "" || rt.project == "") {
			t.Fatalf("route %+v for %s %q", rt, method, path)
		}
	})
}

func FuzzParseCreate(f *testing.F) {
	f.Add([]byte(`{"ref":"main","variables":[{"key":"A","value":"b"}]}`))
	f.Add([]byte(`{"ref":""}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ref, vars, msg := parseCreate(b)
		if msg == "" && (ref == "" || vars == nil) {
			t.Fatalf("accepted %q without ref", b)
		}
	})
}

func FuzzParseListQuery(f *testing.F) {
	f.Add("name=x&status=created&page=2&per_page=500")
	f.Add("sort=sideways")
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		lq, msg := parseListQuery(q)
		if msg == "" && (lq.page < 1 || lq.perPage < 1 || lq.perPage > 100) {
			t.Fatalf("bad paging %+v for %q", lq, raw)
		}
	})
}
