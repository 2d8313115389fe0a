// Package githubsim is a loopback emulator of the part of the GitHub REST
// API that fullsend calls: workflow dispatch (with and without run
// details), workflow runs (get, list, cancel, re-run) with concurrency groups, collaborator permission,
// repository and pull request lookups, the token's own user (GET /user),
// the rate limit (free), and the issue, pull request,
// comment, issue event and review listings a poller reads (with since,
// Link paging and conditional requests). A Go API opens issues and pull
// requests, comments, labels and reviews, returning the webhook delivery
// of each change, and sets assignees, drafts and merges (entitystate.go). It checks authentication, sends
// rate-limit headers, and injects faults (status codes with Retry-After,
// exhausted rate limits, delays, dropped connections) per endpoint, so
// drivers can be tested end to end without the network.
//
// Response shapes are those of GitHub's published REST description, every
// required field included; contract_test.go validates every route against
// it.
package githubsim

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/sim/internal/loopback"
)

// Endpoint names, for faults and call counts.
const (
	EndpointDispatch   = "dispatch"   // POST /repos/{o}/{r}/actions/workflows/{w}/dispatches
	EndpointGetRun     = "get_run"    // GET  /repos/{o}/{r}/actions/runs/{id}
	EndpointListRuns   = "list_runs"  // GET  /repos/{o}/{r}/actions/runs
	EndpointCancelRun  = "cancel_run" // POST /repos/{o}/{r}/actions/runs/{id}/cancel
	EndpointPermission = "permission" // GET  /repos/{o}/{r}/collaborators/{user}/permission
	EndpointRepo       = "repo"       // GET  /repos/{o}/{r}
	EndpointPull       = "pull"       // GET  /repos/{o}/{r}/pulls/{n}
	EndpointRateLimit  = "rate_limit" // GET  /rate_limit (costs no rate-limit point)
	EndpointUser       = "user"       // GET  /user
	EndpointUnknown    = "unknown"    // anything else (404)
)

// Options configures a Server. The zero value is usable.
type Options struct {
	// Token, when set, is the only accepted credential ("Bearer T" or
	// "token T"); anything else gets 401. Empty accepts any request.
	Token string
	// Login is the account GET /user answers with for a personal token
	// (default "fullsend-bot"); an installation token (ghs_ prefix) gets 403.
	Login string
	// Legacy makes dispatch answer 204 without run details even when
	// return_run_details is true (older GitHub Enterprise Server).
	Legacy bool
	// HTMLBase is the web base used in html_url fields (default
	// https://github.com).
	HTMLBase string
	// RateLimit is the x-ratelimit-limit per window (default 5000);
	// requests beyond it get 403 with x-ratelimit-remaining: 0.
	RateLimit int
	// Repos seeds repositories.
	Repos []Repo
	// Now is the clock (default time.Now): the repository's times and
	// every answer's Date header. It may run off the clients' clocks.
	Now func() time.Time
	// FirstRunID is the id of the first dispatched run (default 1001).
	FirstRunID int64
}

// Server is the emulator. Its methods are safe for concurrent use.
type Server struct {
	opts Options

	mu      sync.Mutex
	repos   map[string]*repoState
	runs    []*Run
	nextID  int64
	calls   map[string]int
	called  chan struct{} // closed and replaced whenever a call is counted
	faults  []*faultState
	used    int
	resetAt time.Time
	objID   int64  // last id handed out to an issue, comment, event or review
	apiURL  string // the REST base once listening
	// repoCache holds encoded repository objects by API base and name.
	repoCache map[string]json.RawMessage

	requests, notModified, points int // see Requests, NotModified, RatePointsUsed
	writes                        int // see Writes

	// reactions are the reactions on comments and issues (reactions.go).
	reactions reactionStore

	httpSrv *http.Server
	ln      net.Listener
	done    chan struct{}
	closeMu sync.Once
}

// New builds a Server from opts.
func New(opts Options) *Server {
	if opts.HTMLBase == "" {
		opts.HTMLBase = "https://github.com"
	}
	opts.HTMLBase = strings.TrimSuffix(opts.HTMLBase, "/")
	if opts.Login == "" {
		opts.Login = "fullsend-bot"
	}
	if opts.RateLimit <= 0 {
		opts.RateLimit = 5000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FirstRunID <= 0 {
		opts.FirstRunID = 1001
	}
	s := &Server{opts: opts, repos: map[string]*repoState{}, nextID: opts.FirstRunID,
		calls: map[string]int{}, called: make(chan struct{}), done: make(chan struct{}), objID: 5_000_000}
	for _, r := range opts.Repos {
		s.addRepoLocked(r)
	}
	return s
}

func (s *Server) now() time.Time { return s.opts.Now() }

// Start listens on 127.0.0.1 on a free port and serves until Close. It
// returns the API base URL, ending in '/'.
func (s *Server) Start() (string, error) {
	return s.StartOn("127.0.0.1:0")
}

// StartOn listens on addr, which must be a loopback address.
func (s *Server) StartOn(addr string) (string, error) {
	ln, err := loopback.Listen("githubsim", addr)
	if err != nil {
		return "", err
	}
	s.ln = ln
	s.mu.Lock()
	s.apiURL = "http://" + ln.Addr().String() + "/"
	s.mu.Unlock()
	s.httpSrv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.httpSrv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/", nil
}

// Close stops the server and releases delayed requests.
func (s *Server) Close() {
	s.closeMu.Do(func() {
		close(s.done)
		if s.httpSrv != nil {
			_ = s.httpSrv.Close()
		}
	})
}

// Route is one route of the emulated API: a ServeMux pattern (method and
// path) and the endpoint name it is counted and faulted under.
type Route struct {
	Pattern, Endpoint string
	h                 func(*Server) http.HandlerFunc
}

// routes is the emulator's route table; every route has a contract test
// (contract_test.go).
var routes = []Route{
	{"POST /repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches", EndpointDispatch, hf((*Server).handleDispatch)},
	{"GET /repos/{owner}/{repo}/actions/runs/{id}", EndpointGetRun, hf((*Server).handleGetRun)},
	{"GET /repos/{owner}/{repo}/actions/runs", EndpointListRuns, hf((*Server).handleListRuns)},
	{"GET /repos/{owner}/{repo}/actions/workflows/{workflow}/runs", EndpointWorkflowRuns, hf((*Server).handleWorkflowRuns)},
	{"POST /repos/{owner}/{repo}/actions/runs/{id}/cancel", EndpointCancelRun, hf((*Server).handleCancel)},
	{"POST /repos/{owner}/{repo}/actions/runs/{id}/rerun", EndpointRerunRun, hf((*Server).handleRerun)},
	{"GET /repos/{owner}/{repo}/collaborators/{user}/permission", EndpointPermission, hf((*Server).handlePermission)},
	{"GET /repos/{owner}/{repo}/pulls/{number}", EndpointPull, hf((*Server).handlePull)},
	{"GET /repos/{owner}/{repo}/pulls", EndpointListPulls, hf((*Server).handlePulls)},
	{"GET /repos/{owner}/{repo}/pulls/{number}/reviews", EndpointListReviews, hf((*Server).handleReviews)},
	{"GET /repos/{owner}/{repo}/issues", EndpointListIssues, hf((*Server).handleListIssues)},
	{"GET /repos/{owner}/{repo}/issues/{number}", EndpointGetIssue, hf((*Server).handleGetIssue)},
	{"GET /repos/{owner}/{repo}/issues/comments", EndpointListRepoComments, hf((*Server).handleRepoComments)},
	{"GET /repos/{owner}/{repo}/issues/{number}/comments", EndpointListIssueComments, hf((*Server).handleIssueComments)},
	{"GET /repos/{owner}/{repo}/issues/events", EndpointListRepoEvents, hf((*Server).handleRepoEvents)},
	{"GET /repos/{owner}/{repo}/issues/{number}/events", EndpointListIssueEvents, hf((*Server).handleIssueEvents)},
	{"POST /repos/{owner}/{repo}/issues/{number}/comments", EndpointAddComment, hf((*Server).handleAddComment)},
	{"GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", EndpointCommentReactions, hf((*Server).handleReactions)},
	{"POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", EndpointAddCommentReaction, hf((*Server).handleAddReaction)},
	{"GET /repos/{owner}/{repo}/issues/{number}/reactions", EndpointIssueReactions, hf((*Server).handleReactions)},
	{"POST /repos/{owner}/{repo}/issues/{number}/reactions", EndpointAddIssueReaction, hf((*Server).handleAddReaction)},
	{"GET /repos/{owner}/{repo}", EndpointRepo, hf((*Server).handleRepo)},
	{"GET /user", EndpointUser, hf((*Server).handleUser)},
	{"GET /rate_limit", EndpointRateLimit, hf((*Server).handleRateLimit)},
}

func hf(m func(*Server, http.ResponseWriter, *http.Request)) func(*Server) http.HandlerFunc {
	return func(s *Server) http.HandlerFunc { return func(w http.ResponseWriter, r *http.Request) { m(s, w, r) } }
}

// Routes returns the route table (anything else answers 404).
func Routes() []Route { return append([]Route(nil), routes...) }

// Handler serves the API; a "/api/v3" prefix (GitHub Enterprise Server
// layout) is accepted too.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes {
		mux.HandleFunc(rt.Pattern, s.wrap(rt.Endpoint, rt.h(s)))
	}
	mux.HandleFunc("/", s.wrap(EndpointUnknown, func(w http.ResponseWriter, _ *http.Request) { notFound(w) }))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/api/v3/"); ok {
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/" + rest
			r2.URL.RawPath = ""
			r = r2
		}
		mux.ServeHTTP(w, r)
	})
}

// wrap counts the call, sets the Date header, checks auth and the rate limit, applies faults and
// then runs h. GETs are conditional (see serveGET).
func (s *Server) wrap(endpoint string, h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.calls[endpoint]++
		s.requests++
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			s.writes++
		}
		close(s.called)
		s.called = make(chan struct{})
		f := s.takeFaultLocked(endpoint)
		s.mu.Unlock()
		w.Header().Set("Date", s.now().UTC().Format(http.TimeFormat))
		if !s.authorized(r) {
			writeError(w, http.StatusUnauthorized, "Bad credentials")
			return
		}
		if f != nil && !f.After && !s.applyFault(w, r, f) {
			return
		}
		if endpoint == EndpointRateLimit { // GitHub: "does not count against your primary rate limit"
			s.rate(w, false)
			h(w, r)
			return
		}
		if r.Method == http.MethodGet {
			s.serveGET(w, r, h, f)
			return
		}
		if !s.rateLimit(w) {
			return
		}
		if f != nil && f.After {
			// Perform the real action, then fail (or delay) the answer.
			rec := record(h, r)
			if s.applyFault(w, r, f) {
				rec.replay(w)
			}
			return
		}
		h(w, r)
	}
}

func (s *Server) authorized(r *http.Request) bool {
	if s.opts.Token == "" {
		return true
	}
	a := r.Header.Get("Authorization")
	return a == "Bearer "+s.opts.Token || a == "token "+s.opts.Token
}

// rateLimit counts the request against the rate limit, sets the
// x-ratelimit-* headers and refuses the request when the window is used up.
func (s *Server) rateLimit(w http.ResponseWriter) bool { return s.rate(w, true) }

// rate sets the x-ratelimit-* headers; consume counts the request first
// (a 304 does not).
func (s *Server) rate(w http.ResponseWriter, consume bool) bool {
	s.mu.Lock()
	now := s.now()
	if s.resetAt.IsZero() || !now.Before(s.resetAt) {
		s.resetAt, s.used = now.Add(time.Hour), 0
	}
	over := s.used >= s.opts.RateLimit
	if consume && !over {
		s.used++
		s.points++
	}
	used, reset := s.used, s.resetAt
	s.mu.Unlock()
	setRateHeaders(w.Header(), s.opts.RateLimit, s.opts.RateLimit-used, used, reset)
	if consume && over {
		writeError(w, http.StatusForbidden, "API rate limit exceeded")
		return false
	}
	return true
}

// recorder keeps a handler's answer so a fault can replace or delay it.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.status = code }

// record runs h into a new recorder.
func record(h func(http.ResponseWriter, *http.Request), r *http.Request) *recorder {
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	h(rec, r)
	return rec
}

func (r *recorder) replay(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body.Bytes())
}
