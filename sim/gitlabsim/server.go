// Package gitlabsim is an in-process emulator of the parts of the GitLab
// REST API v4 that fullsend uses: pipeline creation with variables and a
// name, one agent job per pipeline serialized by a resource group per
// scope, the pipelines and jobs lists, pipeline and job cancellation, and
// resource group process modes; and issues, merge requests, notes, label
// events, members and users, each change returning its webhook body
// (work.go, change.go). Tests drive state transitions (a holder
// finishes, the next waiter acquires) and inject faults; it listens on
// 127.0.0.1 only.
//
// Modelled GitLab behaviour: a pipeline created through the API gets one
// job named Options.JobName. When the variable FULLSEND_RESOURCE_KEY is
// set, the pipeline name is "fullsend:<key>" (what the generated
// `workflow:name` produces) and the job joins resource group
// "fullsend-<key>": if the group is free the job acquires it (status
// pending), otherwise it is waiting_for_resource. GitLab keeps every
// waiter; when the holder finishes or is cancelled the next waiter
// acquires it in the group's process mode.
package gitlabsim

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/sim/internal/loopback"
)

// Options configure a Server. Zero values give a usable emulator.
type Options struct {
	Token       string   // accepted PRIVATE-TOKEN / Bearer token; default "sim-token"
	Projects    []string // project paths created up front (ids 1..n); default ["acme/platform"]
	Refs        []string // refs a pipeline may be created on; default ["main"]
	JobName     string   // name of the agent job; default "fullsend-agent"
	ProcessMode string   // process mode of new resource groups; default unordered
	// ManualAssign stops jobs from acquiring a free resource group on their
	// own; tests then call Acquire. Default: a free group is handed on at once.
	ManualAssign bool
	// RateLimit is the number of requests allowed per RateWindow (default one
	// minute); 0 means unlimited and no RateLimit-* headers.
	RateLimit  int
	RateWindow time.Duration
	Now        func() time.Time // clock of its times and of every answer's Date header (may run off the clients'); default time.Now
	// Resolution is the precision of the times it stamps (issues, merge
	// requests, notes, label events, pipelines, award emoji), which its
	// answers format with milliseconds as GitLab's do. Default: the
	// second, the precision GitLab's API documentation gives its ISO 8601
	// times, and the strictest reading (changes made in one second share
	// their time); time.Millisecond is what GitLab.com answers with.
	Resolution time.Duration
}

// Fault is an injected failure for matching requests.
type Fault struct {
	Endpoint string // endpoint name (see Calls); "" matches every endpoint
	Status   int    // HTTP status to answer with; 0 with Delay only delays
	Body     string // response body; default {"message":"<status text>"}
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// AfterProcess handles the request normally first and then answers with
	// Status, modelling a server that did the work but failed to say so.
	AfterProcess bool
	Delay        time.Duration // wait before answering (the request may time out)
	Times        int           // number of requests affected; 0 means 1
}

// Server is the emulator. All methods are safe for concurrent use.
type Server struct {
	opts Options

	mu      sync.Mutex
	st      *state
	wk      work // issues, merge requests, notes, members (work.go)
	calls   map[string]int
	writes  int // see Writes
	faults  []*Fault
	hooks   map[string]func(*http.Request)
	winFrom time.Time
	winUsed int

	awards []*Award // award emoji (award.go)

	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	wg   sync.WaitGroup
}

// New builds a Server; call Start to listen or use Handler directly.
func New(o Options) *Server {
	if o.Token == "" {
		o.Token = "sim-token"
	}
	if len(o.Projects) == 0 {
		o.Projects = []string{"acme/platform"}
	}
	if len(o.Refs) == 0 {
		o.Refs = []string{"main"}
	}
	if o.JobName == "" {
		o.JobName = "fullsend-agent"
	}
	if o.ProcessMode == "" {
		o.ProcessMode = ModeUnordered
	}
	if o.RateWindow <= 0 {
		o.RateWindow = time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Resolution <= 0 {
		o.Resolution = time.Second
	}
	s := &Server{opts: o, calls: map[string]int{}, hooks: map[string]func(*http.Request){}, done: make(chan struct{})}
	stamp := func() time.Time { return o.Now().Truncate(o.Resolution) }
	s.st = &state{now: stamp, projects: map[int64]*Project{}, byPath: map[string]*Project{},
		pipelines: map[int64]*Pipeline{}, jobs: map[int64]*Job{}, groups: map[rgKey]*ResourceGroup{},
		iids: map[int64]int64{}, autoAssign: !o.ManualAssign, defMode: o.ProcessMode}
	for _, p := range o.Projects {
		s.st.addProject(p)
	}
	return s
}

// Start listens on 127.0.0.1 on a free port and returns the base URL
// (without /api/v4).
func (s *Server) Start() (string, error) {
	return s.StartAt("127.0.0.1:0")
}

// StartAt listens on addr, which must be a loopback address.
func (s *Server) StartAt(addr string) (string, error) {
	ln, err := loopback.Listen("gitlabsim", addr)
	if err != nil {
		return "", err
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.srv.Serve(ln)
	}()
	return "http://" + ln.Addr().String(), nil
}

// Close stops the listener and waits for in-flight requests; delayed
// fault responses end early.
func (s *Server) Close() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	if s.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.srv.Shutdown(ctx)
		s.wg.Wait()
	}
}

// Token returns the accepted API token.
func (s *Server) Token() string { return s.opts.Token }

// InjectFault adds a fault; faults apply in the order they were added.
func (s *Server) InjectFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times <= 0 {
		f.Times = 1
	}
	s.faults = append(s.faults, &f)
}

// SetHook runs fn at the start of every request to endpoint, before the
// request is processed and without the server lock held, so fn may drive
// state (e.g. let a waiter acquire between a list and a cancel). A nil fn
// removes the hook.
func (s *Server) SetHook(endpoint string, fn func(*http.Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fn == nil {
		delete(s.hooks, endpoint)
		return
	}
	s.hooks[endpoint] = fn
}

// Calls returns how many requests reached endpoint (after authentication
// and rate limiting). Endpoint names: create_pipeline, list_pipelines,
// get_pipeline, pipeline_variables, pipeline_jobs, cancel_pipeline,
// get_job, cancel_job, list_resource_groups, get_resource_group,
// edit_resource_group, upcoming_jobs, get_project.
func (s *Server) Calls(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[endpoint]
}

// Writes returns how many requests could have changed the world: every
// method but GET and HEAD, counted as they arrive (refused ones too).
func (s *Server) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// AddProject registers a project path (idempotent) and returns its id.
func (s *Server) AddProject(path string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.addProject(path).ID
}
