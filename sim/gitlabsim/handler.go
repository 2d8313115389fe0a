package gitlabsim

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// route is a parsed API request: the project (by id or path), the endpoint
// name and the ids/keys in the path.
type route struct {
	endpoint string
	project  string // project id or unescaped path
	id       int64  // pipeline or job id
	key      string // resource group key
	work     workRoute
}

// parseRoute maps an escaped request path and method to an endpoint. The
// project segment is unescaped, so "group%2Fsub%2Fproject" addresses the
// nested project group/sub/project.
func parseRoute(method, escapedPath string) (route, bool) {
	rest, ok := strings.CutPrefix(escapedPath, "/api/v4/projects/")
	if !ok {
		return parseUserRoute(method, escapedPath)
	}
	raw := strings.Split(rest, "/")
	seg := make([]string, len(raw))
	for i, r := range raw {
		u, err := url.PathUnescape(r)
		if err != nil || u == "" {
			return route{}, false
		}
		seg[i] = u
	}
	rt := route{project: seg[0]}
	s := seg[1:]
	num := func(i int) bool {
		n, err := strconv.ParseInt(s[i], 10, 64)
		rt.id = n
		return err == nil && n > 0
	}
	get, post, put := method == http.MethodGet, method == http.MethodPost, method == http.MethodPut
	switch {
	case len(s) == 0 && get:
		rt.endpoint = "get_project"
	case len(s) == 1 && s[0] == "pipeline" && post:
		rt.endpoint = "create_pipeline"
	case len(s) == 1 && s[0] == "pipelines" && get:
		rt.endpoint = "list_pipelines"
	case len(s) == 2 && s[0] == "pipelines" && get && num(1):
		rt.endpoint = "get_pipeline"
	case len(s) == 3 && s[0] == "pipelines" && s[2] == "jobs" && get && num(1):
		rt.endpoint = "pipeline_jobs"
	case len(s) == 3 && s[0] == "pipelines" && s[2] == "variables" && get && num(1):
		rt.endpoint = "pipeline_variables"
	case len(s) == 3 && s[0] == "pipelines" && s[2] == "cancel" && post && num(1):
		rt.endpoint = "cancel_pipeline"
	case len(s) == 2 && s[0] == "jobs" && get && num(1):
		rt.endpoint = "get_job"
	case len(s) == 3 && s[0] == "jobs" && s[2] == "cancel" && post && num(1):
		rt.endpoint = "cancel_job"
	case len(s) == 1 && s[0] == "resource_groups" && get:
		rt.endpoint = "list_resource_groups"
	case len(s) >= 2 && s[0] == "resource_groups" && strings.Contains(raw[2], "."):
		// GitLab reads an unescaped dot in a resource group key as a
		// format suffix and answers 404.
		return route{}, false
	case len(s) == 2 && s[0] == "resource_groups" && (get || put):
		rt.key = s[1]
		rt.endpoint = map[bool]string{true: "get_resource_group", false: "edit_resource_group"}[get]
	case len(s) == 3 && s[0] == "resource_groups" && s[2] == "upcoming_jobs" && get:
		rt.key, rt.endpoint = s[1], "upcoming_jobs"
	default:
		return rt, parseWorkRoute(method, s, &rt) || parseAwardRoute(method, s, &rt)
	}
	return rt, true
}

// Handler returns the HTTP handler of the emulated API.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(s.serve)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Date", s.opts.Now().UTC().Format(http.TimeFormat))
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.mu.Lock()
		s.writes++
		s.mu.Unlock()
	}
	if !s.authorized(r) {
		writeMsg(w, http.StatusUnauthorized, "401 Unauthorized")
		return
	}
	if !s.rateLimit(w) {
		return
	}
	rt, ok := parseRoute(r.Method, r.URL.EscapedPath())
	if !ok {
		writeMsg(w, http.StatusNotFound, "404 Not Found")
		return
	}
	s.mu.Lock()
	s.calls[rt.endpoint]++
	hook := s.hooks[rt.endpoint]
	fault := s.takeFault(rt.endpoint)
	s.mu.Unlock()
	if hook != nil {
		hook(r)
	}
	if fault == nil {
		s.dispatch(w, r, rt)
		return
	}
	var done *recorder
	if fault.AfterProcess {
		done = &recorder{h: http.Header{}}
		s.dispatch(done, r, rt)
	}
	s.answerFault(w, r, rt, fault, done)
}

func (s *Server) authorized(r *http.Request) bool {
	tok := r.Header.Get("PRIVATE-TOKEN")
	if tok == "" {
		if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			tok = b
		}
	}
	return tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1
}

// rateLimit counts the request in the current window, sets the RateLimit-*
// headers and answers 429 with Retry-After when the window is exhausted.
func (s *Server) rateLimit(w http.ResponseWriter) bool {
	if s.opts.RateLimit <= 0 {
		return true
	}
	s.mu.Lock()
	now := s.opts.Now()
	if now.Sub(s.winFrom) >= s.opts.RateWindow || now.Before(s.winFrom) {
		s.winFrom, s.winUsed = now, 0
	}
	s.winUsed++
	used, reset := s.winUsed, s.winFrom.Add(s.opts.RateWindow)
	s.mu.Unlock()
	h := w.Header()
	remaining := max(s.opts.RateLimit-used, 0)
	h.Set("RateLimit-Limit", strconv.Itoa(s.opts.RateLimit))
	h.Set("RateLimit-Observed", strconv.Itoa(used))
	h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("RateLimit-ResetTime", reset.UTC().Format(http.TimeFormat))
	if used <= s.opts.RateLimit {
		return true
	}
	secs := int(reset.Sub(now).Round(time.Second) / time.Second)
	h.Set("Retry-After", strconv.Itoa(max(secs, 1)))
	writeMsg(w, http.StatusTooManyRequests, "Retry later")
	return false
}

// takeFault returns the first fault matching endpoint, consuming one use.
// Requires s.mu.
func (s *Server) takeFault(endpoint string) *Fault {
	for i, f := range s.faults {
		if f.Endpoint != "" && f.Endpoint != endpoint {
			continue
		}
		f.Times--
		if f.Times <= 0 {
			s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
		}
		c := *f
		return &c
	}
	return nil
}

// answerFault waits out the fault's delay and answers with its status; a
// zero status answers normally (with the recorded response when the request
// was already processed).
func (s *Server) answerFault(w http.ResponseWriter, r *http.Request, rt route, f *Fault, done *recorder) {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
	if f.Status == 0 && done != nil {
		done.replay(w)
		return
	}
	if f.Status == 0 {
		s.dispatch(w, r, rt)
		return
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.Body != "" {
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
		return
	}
	writeMsg(w, f.Status, http.StatusText(f.Status))
}

// recorder keeps the response of a request an AfterProcess fault answers.
type recorder struct {
	h      http.Header
	status int
	body   []byte
}

func (d *recorder) Header() http.Header         { return d.h }
func (d *recorder) Write(b []byte) (int, error) { d.body = append(d.body, b...); return len(b), nil }
func (d *recorder) WriteHeader(s int)           { d.status = s }

func (d *recorder) replay(w http.ResponseWriter) {
	for k, v := range d.h {
		w.Header()[k] = v
	}
	w.WriteHeader(max(d.status, http.StatusOK))
	_, _ = w.Write(d.body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeMsg(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"message": msg})
}

func writeErr(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
