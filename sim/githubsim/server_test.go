package githubsim

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const tok = "sim-token"

func start(t *testing.T, o Options) (*Server, string) {
	t.Helper()
	o.Token = tok
	o.Repos = append(o.Repos, Repo{FullName: "acme/platform", DefaultBranch: "trunk", Branches: []string{"dev"}, Tags: []string{"v1"},
		Workflows: []Workflow{{File: "run.yml"}, {File: "strict.yml", Inputs: []string{"a", "b"}, Required: []string{"a"}}}})
	s := New(o)
	u, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, u
}

// do sends a raw request and returns status, headers and body.
func do(t *testing.T, method, url, token, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{Timeout: 5 * time.Second}
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestDispatchValidation(t *testing.T) {
	many := map[string]string{}
	for i := range 26 {
		many["k"+strconv.Itoa(i)] = "v"
	}
	manyJSON, _ := json.Marshal(map[string]any{"ref": "trunk", "inputs": many})
	bigJSON, _ := json.Marshal(map[string]any{"ref": "trunk", "inputs": map[string]string{
		"a": strings.Repeat("x", 40000), "b": strings.Repeat("é", 25536)}})
	tests := []struct {
		name, path, body, token string
		status                  int
		msg                     string
		runs                    int
	}{
		{"details", "acme/platform/actions/workflows/run.yml", `{"ref":"trunk","inputs":{"x":"1"},"return_run_details":true}`, tok, 200, "workflow_run_id", 1},
		{"no details", "acme/platform/actions/workflows/run.yml", `{"ref":"refs/heads/dev"}`, tok, 204, "", 1},
		{"tag ref", "acme/platform/actions/workflows/run.yml", `{"ref":"v1"}`, tok, 204, "", 1},
		{"bad token", "acme/platform/actions/workflows/run.yml", `{"ref":"trunk"}`, "wrong", 401, "Bad credentials", 0},
		{"no token", "acme/platform/actions/workflows/run.yml", `{"ref":"trunk"}`, "", 401, "Bad credentials", 0},
		{"unknown repo", "acme/nope/actions/workflows/run.yml", `{"ref":"trunk"}`, tok, 404, "Not Found", 0},
		{"unknown workflow", "acme/platform/actions/workflows/x.yml", `{"ref":"trunk"}`, tok, 404, "Not Found", 0},
		{"missing ref", "acme/platform/actions/workflows/run.yml", `{"inputs":{}}`, tok, 422, "wasn't supplied", 0},
		{"unknown ref", "acme/platform/actions/workflows/run.yml", `{"ref":"gone"}`, tok, 422, "No ref found for: gone", 0},
		{"too many inputs", "acme/platform/actions/workflows/run.yml", string(manyJSON), tok, 422, "up to 25", 0},
		{"inputs over 65535 characters", "acme/platform/actions/workflows/run.yml", string(bigJSON), tok, 422, "too large", 0},
		{"non-string input", "acme/platform/actions/workflows/run.yml", `{"ref":"trunk","inputs":{"n":1}}`, tok, 422, "is not a string", 0},
		{"undeclared input", "acme/platform/actions/workflows/strict.yml", `{"ref":"trunk","inputs":{"a":"1","zz":"2"}}`, tok, 422, `Unexpected inputs provided: [\"zz\"]`, 0},
		{"required input", "acme/platform/actions/workflows/strict.yml", `{"ref":"trunk","inputs":{"b":"1"}}`, tok, 422, "Required input 'a' not provided", 0},
		{"bad json", "acme/platform/actions/workflows/run.yml", `{"ref":`, tok, 400, "Problems parsing JSON", 0},
		{"unknown field", "acme/platform/actions/workflows/run.yml", `{"ref":"trunk","extra":1}`, tok, 400, "Problems parsing JSON", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, u := start(t, Options{})
			st, h, body := do(t, "POST", u+"repos/"+tt.path+"/dispatches", tt.token, tt.body)
			if st != tt.status || !strings.Contains(body, tt.msg) {
				t.Errorf("status %d body %q, want %d containing %q", st, body, tt.status, tt.msg)
			}
			if len(s.Runs()) != tt.runs {
				t.Errorf("runs = %d, want %d", len(s.Runs()), tt.runs)
			}
			if st != 401 && h.Get("X-RateLimit-Limit") != "5000" {
				t.Errorf("rate-limit headers missing: %v", h)
			}
			if s.Calls(EndpointDispatch) != 1 {
				t.Errorf("dispatch calls = %d", s.Calls(EndpointDispatch))
			}
		})
	}
}

// TestGoGitHubRoundTrip drives every endpoint through go-github, which
// proves the response shapes decode.
func TestGoGitHubRoundTrip(t *testing.T) {
	s, u := start(t, Options{HTMLBase: "https://gh.test/"})
	if err := s.SetPermission("acme/platform", "maint", "maintain"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPullRequest("acme/platform", PullRequest{Number: 7, Author: "dev", HeadRepo: "dev/platform", HeadRef: "fix", BaseRef: "trunk", HeadSHA: strings.Repeat("a", 40)}); err != nil {
		t.Fatal(err)
	}
	c, err := gogithub.NewClient(gogithub.WithAuthToken(tok), gogithub.WithURLs(&u, &u))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Client().CloseIdleConnections()
	ctx := context.Background()
	det, _, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "platform", "run.yml",
		gogithub.CreateWorkflowDispatchEventRequest{Ref: "trunk", Inputs: map[string]any{"agent": "triage"}, ReturnRunDetails: gogithub.Ptr(true)})
	if err != nil || det.GetWorkflowRunID() != 1001 || det.GetHTMLURL() != "https://gh.test/acme/platform/actions/runs/1001" ||
		det.GetRunURL() != u+"repos/acme/platform/actions/runs/1001" {
		t.Fatalf("dispatch = %+v, %v", det, err)
	}
	run, _, err := c.Actions.GetWorkflowRunByID(ctx, "acme", "platform", 1001)
	if err != nil || run.GetStatus() != StatusQueued || run.GetHeadBranch() != "trunk" || run.GetEvent() != "workflow_dispatch" {
		t.Fatalf("get run = %+v, %v", run, err)
	}
	if err := s.SetRunStatus(1001, StatusInProgress, ""); err != nil {
		t.Fatal(err)
	}
	list, _, err := c.Actions.ListRepositoryWorkflowRuns(ctx, "acme", "platform", &gogithub.ListWorkflowRunsOptions{Status: StatusInProgress})
	if err != nil || list.GetTotalCount() != 1 || list.WorkflowRuns[0].GetID() != 1001 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if _, err := c.Actions.CancelWorkflowRunByID(ctx, "acme", "platform", 1001); err == nil {
		t.Fatal("cancel: want go-github's AcceptedError for 202")
	} else if _, ok := err.(*gogithub.AcceptedError); !ok {
		t.Fatalf("cancel: %v", err)
	}
	_, err = c.Actions.CancelWorkflowRunByID(ctx, "acme", "platform", 1001)
	if er, ok := err.(*gogithub.ErrorResponse); !ok || er.Response.StatusCode != 409 {
		t.Fatalf("second cancel = %v, want 409", err)
	}
	if r, _ := s.Run(1001); r.Conclusion != ConclusionCancelled {
		t.Errorf("run conclusion = %q", r.Conclusion)
	}
	perm, _, err := c.Repositories.GetPermissionLevel(ctx, "acme", "platform", "maint")
	if err != nil || perm.GetPermission() != "write" || perm.GetRoleName() != "maintain" {
		t.Fatalf("permission = %+v, %v", perm, err)
	}
	if _, _, err := c.Repositories.GetPermissionLevel(ctx, "acme", "platform", "stranger"); err == nil {
		t.Error("unknown user: want 404")
	}
	repo, _, err := c.Repositories.Get(ctx, "acme", "platform")
	if err != nil || repo.GetDefaultBranch() != "trunk" || repo.GetFullName() != "acme/platform" {
		t.Fatalf("repo = %+v, %v", repo, err)
	}
	pr, _, err := c.PullRequests.Get(ctx, "acme", "platform", 7)
	if err != nil || pr.GetHead().GetRepo().GetFullName() != "dev/platform" || pr.GetBase().GetRef() != "trunk" || pr.GetUser().GetLogin() != "dev" {
		t.Fatalf("pull = %+v, %v", pr, err)
	}
	for _, ep := range []string{EndpointDispatch, EndpointGetRun, EndpointListRuns, EndpointRepo, EndpointPull} {
		if s.Calls(ep) != 1 {
			t.Errorf("calls(%s) = %d, want 1", ep, s.Calls(ep))
		}
	}
	if s.Calls(EndpointCancelRun) != 2 || s.Calls(EndpointPermission) != 2 {
		t.Errorf("cancel/permission calls = %d/%d", s.Calls(EndpointCancelRun), s.Calls(EndpointPermission))
	}
}

func TestEnterprisePrefixAndUnknownPaths(t *testing.T) {
	_, u := start(t, Options{})
	if st, _, body := do(t, "GET", u+"api/v3/repos/acme/platform", tok, ""); st != 200 || !strings.Contains(body, `"default_branch":"trunk"`) {
		t.Errorf("GHES path: %d %s", st, body)
	}
	if st, _, _ := do(t, "GET", u+"repos/acme/platform/hooks", tok, ""); st != 404 {
		t.Errorf("unknown path: %d", st)
	}
}

func TestRateLimitWindow(t *testing.T) {
	s, u := start(t, Options{RateLimit: 2})
	for i, want := range []int{200, 200, 403} {
		st, h, _ := do(t, "GET", u+"repos/acme/platform", tok, "")
		if st != want {
			t.Fatalf("request %d: status %d, want %d", i, st, want)
		}
		if rem := h.Get("X-RateLimit-Remaining"); rem != strconv.Itoa(max(1-i, 0)) {
			t.Errorf("request %d: remaining %s", i, rem)
		}
	}
	if s.Calls(EndpointRepo) != 3 {
		t.Errorf("calls = %d", s.Calls(EndpointRepo))
	}
}

func TestFaults(t *testing.T) {
	s, u := start(t, Options{})
	s.Inject(Fault{Endpoint: EndpointRepo, Status: 503, RetryAfter: 9, Times: 2})
	s.Inject(Fault{Endpoint: EndpointRepo, Status: 429, RateLimited: true, ResetIn: time.Minute})
	for i, want := range []int{503, 503, 429, 200} {
		st, h, _ := do(t, "GET", u+"repos/acme/platform", tok, "")
		if st != want {
			t.Fatalf("request %d: %d, want %d", i, st, want)
		}
		if i < 2 && h.Get("Retry-After") != "9" {
			t.Errorf("request %d: Retry-After %q", i, h.Get("Retry-After"))
		}
		if i == 2 && h.Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("rate-limited answer has remaining %q", h.Get("X-RateLimit-Remaining"))
		}
	}

	s.Inject(Fault{Endpoint: EndpointDispatch, Drop: true, After: true})
	if st, _, _ := do(t, "POST", u+"repos/acme/platform/actions/workflows/run.yml/dispatches", tok, `{"ref":"trunk"}`); st != 0 {
		t.Errorf("dropped connection answered %d", st)
	}
	if len(s.Runs()) != 1 {
		t.Errorf("After fault: %d runs, want the dispatch to have happened", len(s.Runs()))
	}
	s.Inject(Fault{Endpoint: EndpointDispatch, Drop: true})
	do(t, "POST", u+"repos/acme/platform/actions/workflows/run.yml/dispatches", tok, `{"ref":"trunk"}`)
	if len(s.Runs()) != 1 {
		t.Errorf("Drop before handling dispatched anyway")
	}

	s.Inject(Fault{Endpoint: EndpointGetRun, Delay: 50 * time.Millisecond, After: true})
	begin := time.Now()
	if st, _, _ := do(t, "GET", u+"repos/acme/platform/actions/runs/1001", tok, ""); st != 200 || time.Since(begin) < 50*time.Millisecond {
		t.Errorf("delayed answer: %d after %v", st, time.Since(begin))
	}

	s.Inject(Fault{Endpoint: EndpointRepo, Delay: time.Minute})
	arrived := s.Calls(EndpointRepo) + 1
	closed := make(chan error, 1)
	go func() {
		// Close once the request holds the delay fault.
		err := s.WaitCalls(context.Background(), EndpointRepo, arrived)
		s.ClearFaults()
		s.Close()
		closed <- err
	}()
	begin = time.Now()
	_, _, body := do(t, "GET", u+"repos/acme/platform", tok, "")
	if time.Since(begin) > 10*time.Second || strings.Contains(body, "Client.Timeout") {
		t.Errorf("Close did not release a delayed request (%v: %s)", time.Since(begin), body)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}

func TestStartOnRejectsNonLoopback(t *testing.T) {
	s := New(Options{})
	if _, err := s.StartOn("0.0.0.0:0"); err == nil {
		t.Error("non-loopback listen accepted")
	}
	if err := s.SetPermission("x/y", "a", "admin"); err == nil {
		t.Error("permission on unknown repo accepted")
	}
}

func TestWaitCalls(t *testing.T) {
	s, u := start(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.WaitCalls(ctx, EndpointRepo, 1); err == nil || !strings.Contains(err.Error(), "0 of 1 calls") {
		t.Errorf("WaitCalls before any call = %v, want the context error", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.WaitCalls(context.Background(), EndpointRepo, 2) }()
	do(t, "GET", u+"repos/acme/platform", tok, "")
	do(t, "GET", u+"repos/acme/platform", tok, "")
	if err := <-done; err != nil {
		t.Errorf("WaitCalls after two calls = %v", err)
	}
	if err := s.WaitCalls(ctx, EndpointRepo, 2); err != nil {
		t.Errorf("WaitCalls when already reached = %v", err)
	}
}
