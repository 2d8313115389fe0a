// Package jirasim is an in-memory, thread-safe emulator of the Jira Cloud
// platform REST API v3 endpoints fullsend uses: enhanced JQL search (a JQL
// subset, page tokens, inline properties, expand=changelog, an optional
// search lag), issue entity properties, comments (ADF bodies), changelogs
// (per issue and bulk), project roles, statuses and /myself. Tests build a
// world through methods on *Server, inject faults and read call counts.
// World-building methods panic on impossible input (an unknown issue key,
// status or category): they are test setup, not user input.
package jirasim

import (
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/sim/internal/loopback"
)

// Options configure a Server. All fields are optional.
type Options struct {
	// SearchLag delays what search sees of writes (Jira's search index is
	// eventually consistent); direct reads and reconcileIssues are current.
	SearchLag time.Duration
	// Latency, if set, returns a delay added to every request.
	Latency func() time.Duration
	// Now is the clock (default time.Now): the site's times and every
	// answer's Date header. It may run off the clients' clocks (a site
	// whose clock is skewed).
	Now func() time.Time
	// RequiredToken, if set, is the only accepted credential (the Bearer
	// token or the Basic password); otherwise any credential is accepted
	// and only a missing Authorization header is refused.
	RequiredToken string
	// UserTimeZone reads quoted JQL dates (default UTC), like the Jira
	// user's profile time zone.
	UserTimeZone *time.Location
	// CompactOffsets writes timestamps the way Jira Cloud sends them
	// (2024-05-02T10:11:12.345+0000). The default is the same instant with
	// a colon in the offset (+00:00), which the OpenAPI description's
	// date-time format requires; clients must accept both.
	CompactOffsets bool
	// RateBudget, if set, limits calls per window and sends Jira's
	// rate-limit headers on every response (see RateBudget).
	RateBudget *RateBudget
	// BurstLimit, if positive, admits at most that many calls in any
	// rolling second of the emulator's clock, like Jira Cloud's
	// per-second burst limit: a call beyond it is answered 429 with
	// Retry-After and RateLimit-Reason: jira-burst-based, and no
	// X-RateLimit-* header moves (see burst.go).
	BurstLimit int
	// IssueComments, if positive, is how many comments an issue read
	// returns inline in its comment field (the oldest ones, with the
	// total); 0 returns them all.
	IssueComments int
	// KeyComparison is how JQL compares issue keys and ids (`id > 10042`,
	// `key <= PROJ-7`): KeysPerProject (the default, the strictest reading
	// of Atlassian's documentation), KeysNumeric or KeysRejected (see
	// keycompare.go).
	KeyComparison KeyComparison
}

// Fault makes matching calls fail. Endpoint is a template such as
// "POST /rest/api/3/search/jql" ("" matches any). Delay is waited first;
// then DropConnection closes the connection without a response, or Status
// (if non-zero) is answered with an error body and, if RetryAfter > 0, a
// Retry-After header in whole seconds. Times is how many calls it hits
// (0 means once, negative means until ClearFaults). Header adds response
// headers; with Status 0 the call is then answered normally, which models
// Jira's rate-limit signals (X-RateLimit-NearLimit: true). Before, if
// set, runs when a matching call arrives, before anything else is done
// with it (before a write it carries is applied, and before the answer's
// Date is read off the clock): what happens in the world while the call
// is in flight.
type Fault struct {
	Before         func()
	Endpoint       string
	Status         int
	RetryAfter     time.Duration
	Delay          time.Duration
	DropConnection bool
	Times          int
	Header         map[string]string
}

// Server is the emulator. Create it with New.
type Server struct {
	opts     Options
	mux      *http.ServeMux
	patterns []string // the registered patterns, in order (Routes)

	mu       sync.Mutex
	projects map[string]*project
	issues   map[string]*issue
	byID     map[int64]*issue
	users    map[string]User
	roleIDs  map[string]int64
	statuses []*statusDef
	myself   string
	nextID   int64
	calls    map[string]int
	writes   int // requests that may change the world (see Writes)
	faults   []*Fault
	budget   budgetState
	burst    []time.Time // admission times within the last second (BurstLimit)
	baseURL  string
	owners   ownerProps // user and project entity properties
	jqls     []string   // the JQL of the latest searches received, oldest first (SearchJQL)

	srv *http.Server
	ln  net.Listener
}

// New returns an empty world with the statuses To Do (new), In Progress
// (indeterminate) and Done (done), the roles Administrators, Developers
// and Users, and an app account "557058:fullsend-bot" as Myself.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.UserTimeZone == nil {
		opts.UserTimeZone = time.UTC
	}
	validKeyComparison(opts.KeyComparison)
	s := &Server{opts: opts, calls: map[string]int{}, byID: map[int64]*issue{}}
	s.initWorld()
	s.routes()
	return s
}

// Routes returns the route table: every ServeMux pattern served
// ("METHOD /rest/api/3/…"), each of which has a contract test.
func (s *Server) Routes() []string { return slices.Clone(s.patterns) }

// Handler serves the emulated API.
func (s *Server) Handler() http.Handler { return s.mux }

// Start serves on a fresh 127.0.0.1 port and returns the base URL.
func (s *Server) Start() (string, error) { return s.Listen("127.0.0.1:0") }

// Listen serves on addr, which must be a loopback address.
func (s *Server) Listen(addr string) (string, error) {
	ln, err := loopback.Listen("jirasim", addr)
	if err != nil {
		return "", err
	}
	base := "http://" + ln.Addr().String()
	s.mu.Lock()
	s.ln = ln
	s.baseURL = base
	s.srv = &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second}
	srv := s.srv
	s.mu.Unlock()
	go srv.Serve(ln) //nolint:errcheck // returns ErrServerClosed on Close
	return base, nil
}

// Close stops a started server and its connections.
func (s *Server) Close() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// Calls returns per-endpoint request counts keyed by template, e.g.
// "POST /rest/api/3/search/jql"; faulted and refused calls count too.
func (s *Server) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

// ResetCalls zeroes the call counts and the write count.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = map[string]int{}
	s.writes = 0
}

// Writes returns how many requests could have changed the world: every
// PUT, DELETE and POST except the POSTs that only read (search, bulk
// changelogs), counted as they arrive, refused or faulted ones too.
func (s *Server) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// readPOSTs are the POST endpoints that change nothing.
var readPOSTs = map[string]bool{
	"POST /rest/api/3/search/jql":          true,
	"POST /rest/api/3/search":              true,
	"POST /rest/api/3/changelog/bulkfetch": true,
}

func isWrite(pattern string) bool {
	method, _, _ := strings.Cut(pattern, " ")
	return method != http.MethodGet && method != http.MethodHead && !readPOSTs[pattern]
}

// InjectFault adds a fault; faults are tried in the order added.
func (s *Server) InjectFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times == 0 {
		f.Times = 1
	}
	s.faults = append(s.faults, &f)
}

// ClearFaults removes all faults.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// takeFault returns the first fault matching endpoint, consuming one use.
func (s *Server) takeFault(endpoint string) *Fault {
	for i, f := range s.faults {
		if f.Endpoint != "" && f.Endpoint != endpoint {
			continue
		}
		out := *f
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return &out
	}
	return nil
}

// handle registers h under a ServeMux pattern that doubles as the
// endpoint template, wrapped with counting, latency, the Date header,
// faults and auth.
func (s *Server) handle(pattern string, h func(w http.ResponseWriter, r *http.Request)) {
	s.patterns = append(s.patterns, pattern)
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.calls[pattern]++
		if isWrite(pattern) {
			s.writes++
		}
		f := s.takeFault(pattern)
		s.mu.Unlock()
		if f != nil && f.Before != nil {
			f.Before()
		}
		if s.opts.Latency != nil {
			if !sleep(r, s.opts.Latency()) {
				return
			}
		}
		w.Header().Set("Date", s.opts.Now().UTC().Format(http.TimeFormat))
		if f != nil {
			if !sleep(r, f.Delay) {
				return
			}
			if f.DropConnection {
				dropConnection(w)
				return
			}
			for k, v := range f.Header {
				w.Header().Set(k, v)
			}
			if f.Status != 0 {
				if f.RetryAfter > 0 {
					secs := int((f.RetryAfter + time.Second - 1) / time.Second)
					w.Header().Set("Retry-After", itoa(secs))
				}
				writeError(w, f.Status, "Injected fault: "+http.StatusText(f.Status))
				return
			}
		}
		if !s.spendBurst(w) || !s.spend(w) {
			return
		}
		if !s.authorized(r) {
			writeError(w, http.StatusUnauthorized, "Client must be authenticated to access this resource.")
			return
		}
		h(w, r)
	})
}

func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		conn.Close()
	}
}

// authorized accepts any Basic or Bearer credential, or only
// RequiredToken when set.
func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	scheme, cred, ok := strings.Cut(h, " ")
	if !ok || cred == "" {
		return false
	}
	var secret string
	switch strings.ToLower(scheme) {
	case "bearer":
		secret = cred
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			return false
		}
		_, pw, ok := strings.Cut(string(raw), ":")
		if !ok {
			return false
		}
		secret = pw
	default:
		return false
	}
	return s.opts.RequiredToken == "" || secret == s.opts.RequiredToken
}

// base is the URL prefix for self links.
func (s *Server) base(r *http.Request) string {
	s.mu.Lock()
	b := s.baseURL
	s.mu.Unlock()
	if b == "" {
		b = "http://" + r.Host
	}
	return b
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "encoding response: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	w.Write(b)
}

// writeError answers Jira's ErrorCollection shape.
func writeError(w http.ResponseWriter, status int, msgs ...string) {
	if msgs == nil {
		msgs = []string{}
	}
	b, _ := json.Marshal(map[string]any{"errorMessages": msgs, "errors": map[string]string{}})
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	w.Write(b)
}
