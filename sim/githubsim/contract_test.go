package githubsim

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/internal/apispec"
)

// contractValidator wraps the emulator: every answer is validated against
// the response schema GitHub's REST description gives the operation the
// request's route names, and each route and status is recorded.
type contractValidator struct {
	t     *testing.T
	spec  *apispec.OpenAPI
	inner http.Handler
	mux   *http.ServeMux // the route table, to name a request's route
	mu    sync.Mutex
	seen  map[string]bool // "pattern status"
}

func newContractValidator(t *testing.T, s *Server) *contractValidator {
	v := &contractValidator{t: t, spec: apispec.GitHub(t), inner: s.Handler(), mux: http.NewServeMux(), seen: map[string]bool{}}
	for _, rt := range Routes() {
		v.mux.HandleFunc(rt.Pattern, func(http.ResponseWriter, *http.Request) {})
	}
	return v
}

func (v *contractValidator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	v.inner.ServeHTTP(rec, r)
	for k, vals := range rec.Header() {
		w.Header()[k] = vals
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())

	_, pattern := v.mux.Handler(r)
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		v.t.Errorf("%s %s: no route of the emulator", r.Method, r.URL.Path)
		return
	}
	specPath, ok := v.spec.SpecPath(method, path)
	if !ok {
		v.t.Errorf("%s: no single operation in GitHub's description", pattern)
		return
	}
	if err := v.spec.Validate(method, specPath, rec.Code, rec.Body.Bytes()); err != nil && !knownDeviation(pattern, err) {
		v.t.Errorf("%s %s -> %d does not match %s %s: %v\nbody: %.800s", r.Method, r.URL.Path, rec.Code, method, specPath, err, rec.Body.String())
	}
	v.mu.Lock()
	v.seen[pattern+" "+strconv.Itoa(rec.Code)] = true
	v.mu.Unlock()
}

// knownDeviations are the places where GitHub answers outside its own
// description, and the emulator follows GitHub: pattern, then the
// validation failure it may show.
var knownDeviations = []struct{ pattern, failure, why string }{
	{"GET /repos/{owner}/{repo}/pulls/{number}", "/head/repo: got null, want object",
		"a pull request from a deleted fork has a null head repository (the description says object)"},
	{"GET /repos/{owner}/{repo}/pulls", "/head/repo: got null, want object", "the same, in the list"},
}

// knownDeviation reports whether every line of err is a known deviation
// of pattern.
func knownDeviation(pattern string, err error) bool {
	for _, line := range strings.Split(err.Error(), "\n") {
		ok := false
		for _, d := range knownDeviations {
			ok = ok || (d.pattern == pattern && strings.HasSuffix(line, d.failure))
		}
		if !ok {
			return false
		}
	}
	return true
}

// contractCase is one request of the contract test and the status it
// must get.
type contractCase struct {
	method, path, body, token string
	status                    int
}

// TestContractAgainstOpenAPI: every route of the emulator answers, on
// success and on error, with the shape GitHub's REST description gives
// the operation; a route without a case here fails the test.
func TestContractAgainstOpenAPI(t *testing.T) {
	s := New(Options{Token: tok, Repos: []Repo{{FullName: "acme/platform", Workflows: []Workflow{{File: "run.yml"}}}}})
	must0 := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must0(s.SetPermission("acme/platform", "alice", "write"))
	srv := httptest.NewServer(newContractValidator(t, s))
	defer srv.Close()
	v := srv.Config.Handler.(*contractValidator)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := s.OpenIssue("acme/platform", IssueSpec{Title: "bug", Author: "alice", Labels: []string{"bug"}})
	must(err)
	_, _, err = s.OpenIssue("acme/platform", IssueSpec{Title: "fix", Author: "alice", PullRequest: true})
	must(err)
	_, _, err = s.OpenIssue("acme/platform", IssueSpec{Title: "fork", Author: "bob", PullRequest: true, HeadRepo: "-"})
	must(err)
	_, _, err = s.AddComment("acme/platform", 1, "alice", "/fs-triage")
	must(err)
	_, err = s.SetLabel("acme/platform", 1, "alice", "triaged", true)
	must(err)
	_, _, err = s.SubmitReview("acme/platform", 2, "alice", "APPROVED", "ok")
	must(err)
	const repo = "/repos/acme/platform"
	dispatch := `{"ref":"main","inputs":{"agent":"triage"},"return_run_details":true}`
	cases := []contractCase{
		{"POST", repo + "/actions/workflows/run.yml/dispatches", dispatch, tok, 200},
		{"POST", repo + "/actions/workflows/run.yml/dispatches", `{"ref":"main"}`, tok, 204},
		{"POST", repo + "/actions/workflows/run.yml/dispatches", `{"ref":"gone"}`, tok, 422},
		{"POST", repo + "/actions/workflows/nope.yml/dispatches", `{"ref":"main"}`, tok, 404},
		{"POST", repo + "/actions/workflows/run.yml/dispatches", `{"ref":"main"}`, "wrong", 401},
		{"GET", repo + "/actions/runs/1001", "", tok, 200},
		{"GET", repo + "/actions/runs/9", "", tok, 404},
		{"GET", repo + "/actions/runs?per_page=1", "", tok, 200},
		{"GET", repo + "/actions/workflows/run.yml/runs?event=workflow_dispatch&created=%3E%3D2020-01-01", "", tok, 200},
		{"GET", repo + "/actions/workflows/run.yml/runs?created=never", "", tok, 422},
		{"GET", repo + "/actions/workflows/nope.yml/runs", "", tok, 404},
		{"POST", repo + "/actions/runs/1001/cancel", "", tok, 202},
		{"POST", repo + "/actions/runs/1001/cancel", "", tok, 409},
		{"POST", repo + "/actions/runs/1001/rerun", "", tok, 201},
		{"POST", repo + "/actions/runs/1001/rerun", "", tok, 403},
		{"GET", repo + "/collaborators/alice/permission", "", tok, 200},
		{"GET", repo + "/collaborators/nobody/permission", "", tok, 404},
		{"GET", repo + "/pulls/2", "", tok, 200},
		{"GET", repo + "/pulls/3", "", tok, 200},
		{"GET", repo + "/pulls/1", "", tok, 404},
		{"GET", repo + "/pulls?state=all", "", tok, 200},
		{"GET", repo + "/pulls/2/reviews", "", tok, 200},
		{"GET", repo + "/issues?state=all&since=2020-01-01T00:00:00Z", "", tok, 200},
		{"GET", repo + "/issues/1", "", tok, 200},
		{"GET", repo + "/issues/99", "", tok, 404},
		{"GET", repo + "/issues/comments?since=2020-01-01T00:00:00Z", "", tok, 200},
		{"GET", repo + "/issues/1/comments", "", tok, 200},
		{"GET", repo + "/issues/events", "", tok, 200},
		{"GET", repo + "/issues/1/events", "", tok, 200},
		{"GET", repo, "", tok, 200},
		{"GET", "/repos/acme/nope", "", tok, 404},
		{"GET", "/user", "", tok, 200},
		{"GET", "/user", "", "", 401},
		{"GET", "/rate_limit", "", tok, 200},
	}
	cases = append(cases, reactionCases(s, repo)...)
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: status %d, want %d", c.method, c.path, resp.StatusCode, c.status)
		}
	}
	for _, rt := range Routes() {
		ok := false
		for k := range v.seen {
			if strings.HasPrefix(k, rt.Pattern+" 2") {
				ok = true
			}
		}
		if !ok {
			t.Errorf("route %s has no successful contract case", rt.Pattern)
		}
	}
}

// TestUserByTokenKind: GET /user answers a personal token with its
// login and an installation token (ghs_) with GitHub's 403, both in the
// shapes GitHub's description gives.
func TestUserByTokenKind(t *testing.T) {
	s := New(Options{Login: "octo-bot"})
	srv := httptest.NewServer(newContractValidator(t, s))
	defer srv.Close()
	for _, tc := range []struct {
		token  string
		status int
		want   string
	}{
		{"ghp_personal", 200, `"login":"octo-bot"`},
		{"github_pat_fine", 200, `"login":"octo-bot"`},
		{"ghs_installation", 403, "Resource not accessible by integration"},
	} {
		code, _, body := do(t, "GET", srv.URL+"/user", tc.token, "")
		if code != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("token %s: %d %s, want %d with %s", tc.token, code, body, tc.status, tc.want)
		}
	}
}
