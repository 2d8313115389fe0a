package githubsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const maxBody = 1 << 20

// MaxInputChars is GitHub's documented limit on a workflow_dispatch inputs
// payload (65,535 characters), counted over the input values.
const MaxInputChars = 65535

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

func notFound(w http.ResponseWriter) { writeError(w, http.StatusNotFound, "Not Found") }

func (s *Server) repoOf(r *http.Request) (*repoState, string) {
	name := r.PathValue("owner") + "/" + r.PathValue("repo")
	return s.repos[name], name
}

// withRepo runs f under the state lock with the repository the path's
// {owner}/{repo} name, or answers 404.
func (s *Server) withRepo(w http.ResponseWriter, r *http.Request, f func(st *repoState, name string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, name := s.repoOf(r)
	if st == nil {
		notFound(w)
		return
	}
	f(st, name)
}

func apiBase(r *http.Request) string { return "http://" + r.Host + "/" }

// runAPIURL is the REST URL of run id in repo.
func runAPIURL(r *http.Request, repo string, id int64) string {
	return fmt.Sprintf("%srepos/%s/actions/runs/%d", apiBase(r), repo, id)
}

type dispatchBody struct {
	Ref              *string                    `json:"ref"`
	Inputs           map[string]json.RawMessage `json:"inputs"`
	ReturnRunDetails bool                       `json:"return_run_details"`
}

func (s *Server) handleDispatch(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	var body dispatchBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	s.withRepo(w, r, func(st *repoState, repo string) {
		wf, ok := st.workflow(repo, r.PathValue("workflow"))
		if !ok {
			notFound(w)
			return
		}
		if body.Ref == nil || *body.Ref == "" {
			writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"ref\" wasn't supplied.")
			return
		}
		ref := *body.Ref
		short := strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/tags/")
		if !st.refs[short] {
			writeError(w, http.StatusUnprocessableEntity, "No ref found for: "+ref)
			return
		}
		if len(body.Inputs) > 25 {
			writeError(w, http.StatusUnprocessableEntity, "you may only define up to 25 `inputs` for a `workflow_dispatch` event")
			return
		}
		inputs := make(map[string]string, len(body.Inputs))
		size := 0
		for k, v := range body.Inputs {
			var sv string
			if err := json.Unmarshal(v, &sv); err != nil {
				writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("Invalid request.\n\nFor 'properties/%s', %s is not a string.", k, v))
				return
			}
			inputs[k] = sv
			size += utf8.RuneCountInString(sv)
		}
		if size > MaxInputChars {
			writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("inputs are too large: %d characters, the maximum is %d", size, MaxInputChars))
			return
		}
		if msg := checkDeclared(wf, inputs); msg != "" {
			writeError(w, http.StatusUnprocessableEntity, msg)
			return
		}
		now := s.stamp()
		run := &Run{ID: s.nextID, Repo: repo, Workflow: wf.File, Ref: short, Inputs: inputs,
			Status: StatusQueued, CreatedAt: now, UpdatedAt: now, StartedAt: now, Attempt: 1}
		run.HTMLURL = fmt.Sprintf("%s/%s/actions/runs/%d", s.opts.HTMLBase, repo, run.ID)
		s.nextID++
		s.runs = append(s.runs, run)
		s.queue(run)
		if !body.ReturnRunDetails || s.opts.Legacy {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"workflow_run_id": run.ID,
			"run_url":         runAPIURL(r, repo, run.ID),
			"html_url":        run.HTMLURL,
		})
	})
}

func checkDeclared(wf Workflow, inputs map[string]string) string {
	if wf.Inputs != nil {
		var extra []string
		for k := range inputs {
			if !slices.Contains(wf.Inputs, k) {
				extra = append(extra, strconv.Quote(k))
			}
		}
		if len(extra) > 0 {
			slices.Sort(extra)
			return "Unexpected inputs provided: [" + strings.Join(extra, ", ") + "]"
		}
	}
	for _, k := range wf.Required {
		if _, ok := inputs[k]; !ok {
			return fmt.Sprintf("Required input '%s' not provided", k)
		}
	}
	return ""
}

// runDoc is a workflow run as GitHub's REST API shows it (the fields
// clients read; a struct, which encodes far faster than a map, since run
// lists are the emulator's hottest answers).
type runDoc struct {
	ID           int64      `json:"id"`
	NodeID       string     `json:"node_id"`
	Name         string     `json:"name"`
	DisplayTitle string     `json:"display_title"`
	WorkflowID   int64      `json:"workflow_id"`
	HeadBranch   string     `json:"head_branch"`
	HeadSHA      string     `json:"head_sha"`
	Path         string     `json:"path"`
	RunNumber    int64      `json:"run_number"`
	RunAttempt   int        `json:"run_attempt"`
	Event        string     `json:"event"`
	Status       string     `json:"status"`
	Conclusion   *string    `json:"conclusion"`
	URL          string     `json:"url"`
	HTMLURL      string     `json:"html_url"`
	CancelURL    string     `json:"cancel_url"`
	RerunURL     string     `json:"rerun_url"`
	JobsURL      string     `json:"jobs_url"`
	LogsURL      string     `json:"logs_url"`
	ArtifactsURL string     `json:"artifacts_url"`
	CheckSuite   string     `json:"check_suite_url"`
	WorkflowURL  string     `json:"workflow_url"`
	CreatedAt    string     `json:"created_at"`
	UpdatedAt    string     `json:"updated_at"`
	StartedAt    string     `json:"run_started_at"`
	PullRequests []any      `json:"pull_requests"`
	HeadCommit   *commitDoc `json:"head_commit"`
	// repo is the repository object (repository and head_repository),
	// encoded once per repository and spliced in by encode.
	repo json.RawMessage
}

// encode appends the run's JSON to b: the struct's fields, then the
// repository twice (copied, not re-encoded: run lists are large).
func (d *runDoc) encode(b []byte) []byte {
	doc, _ := json.Marshal(d)
	b = append(b, doc[:len(doc)-1]...)
	b = append(b, `,"repository":`...)
	b = append(b, d.repo...)
	b = append(b, `,"head_repository":`...)
	b = append(b, d.repo...)
	return append(b, '}')
}

// writeRuns answers a run or a list of runs (total set) as JSON.
func writeRuns(w http.ResponseWriter, runs []runDoc, total int, list bool) {
	var b []byte
	if list {
		b = append(b, `{"total_count":`...)
		b = strconv.AppendInt(b, int64(total), 10)
		b = append(b, `,"workflow_runs":[`...)
	}
	for i := range runs {
		if i > 0 {
			b = append(b, ',')
		}
		b = runs[i].encode(b)
	}
	if list {
		b = append(b, "]}"...)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
}

var zeroSHA = strings.Repeat("0", 40)

func (s *Server) runJSON(r *http.Request, run *Run, title string) runDoc {
	st := s.repos[run.Repo]
	d := runDoc{ID: run.ID, NodeID: fmt.Sprintf("WFR_%d", run.ID), Name: run.Workflow, DisplayTitle: title,
		WorkflowID: hashID("workflow:"+run.Repo, run.Workflow), HeadBranch: run.Ref, HeadSHA: zeroSHA,
		Path: ".github/workflows/" + run.Workflow, RunNumber: run.ID, RunAttempt: max(run.Attempt, 1), Event: "workflow_dispatch",
		Status: run.Status, URL: runAPIURL(r, run.Repo, run.ID), HTMLURL: run.HTMLURL,
		CreatedAt: ts(run.CreatedAt), UpdatedAt: ts(run.UpdatedAt), StartedAt: ts(startedAt(run)),
		PullRequests: []any{}, HeadCommit: headCommit(zeroSHA, run.CreatedAt)}
	if run.Conclusion != "" {
		c := run.Conclusion
		d.Conclusion = &c
	}
	if d.DisplayTitle == "" {
		d.DisplayTitle = s.runTitle(st, run)
	}
	d.CancelURL, d.RerunURL, d.JobsURL, d.LogsURL = d.URL+"/cancel", d.URL+"/rerun", d.URL+"/jobs", d.URL+"/logs"
	d.ArtifactsURL = d.URL + "/artifacts"
	d.CheckSuite = fmt.Sprintf("%srepos/%s/check-suites/%d", apiBase(r), run.Repo, run.ID)
	d.WorkflowURL = fmt.Sprintf("%srepos/%s/actions/workflows/%d", apiBase(r), run.Repo, d.WorkflowID)
	d.repo = s.viewOf(r, st, run.Repo).repoRaw(run.Repo)
	return d
}

// startedAt is the run's run_started_at (its creation for a run seeded
// without one).
func startedAt(run *Run) time.Time {
	if run.StartedAt.IsZero() {
		return run.CreatedAt
	}
	return run.StartedAt
}

// runTitle renders (once: inputs never change) the run's display title
// from its workflow's run-name.
func (s *Server) runTitle(st *repoState, run *Run) string {
	if run.title == "" {
		title := DisplayTitle
		if st != nil {
			if wf, ok := st.workflows[run.Workflow]; ok && wf.RunName != nil {
				title = wf.RunName
			}
		}
		run.title = title(run.Inputs)
	}
	return run.title
}

func (s *Server) findRun(repo, idText string) *Run {
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return nil
	}
	for _, run := range s.runs {
		if run.ID == id && run.Repo == repo {
			return run
		}
	}
	return nil
}

// withRun runs f under the state lock with the run the path's
// {owner}/{repo} and {id} name, or answers 404.
func (s *Server) withRun(w http.ResponseWriter, r *http.Request, f func(run *Run)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, repo := s.repoOf(r)
	run := s.findRun(repo, r.PathValue("id"))
	if run == nil {
		notFound(w)
		return
	}
	f(run)
}

func (s *Server) handleGetRun(w http.ResponseWriter, r *http.Request) {
	s.withRun(w, r, func(run *Run) {
		writeRuns(w, []runDoc{s.runJSON(r, run, "")}, 1, false)
	})
}

func (s *Server) handleListRuns(w http.ResponseWriter, r *http.Request) {
	s.withRepo(w, r, func(st *repoState, repo string) {
		s.listRuns(w, r, st, repo, func(*Run) bool { return true })
	})
}

func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) {
	s.withRun(w, r, func(run *Run) {
		if run.Status == StatusCompleted {
			writeError(w, http.StatusConflict, "Cannot cancel a workflow run that is completed.")
			return
		}
		s.end(run, ConclusionCancelled)
		writeJSON(w, http.StatusAccepted, map[string]any{})
	})
}

// legacyPermission maps a role to the legacy permission field.
func legacyPermission(role string) string {
	switch role {
	case "admin", "write", "read", "none":
		return role
	case "maintain":
		return "write"
	default: // triage and custom roles
		return "read"
	}
}

func (s *Server) handlePermission(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, _ := s.repoOf(r)
	login := r.PathValue("user")
	role, ok := "", false
	if st != nil {
		role, ok = st.perms[login]
	}
	if !ok {
		notFound(w)
		return
	}
	u := s.viewOf(r, st, r.PathValue("owner")+"/"+r.PathValue("repo")).user(login)
	u["role_name"] = role
	u["permissions"] = map[string]bool{"admin": role == "admin", "maintain": role == "admin" || role == "maintain",
		"push":   legacyPermission(role) == "admin" || legacyPermission(role) == "write",
		"triage": role != "read" && role != "none", "pull": role != "none"}
	writeJSON(w, http.StatusOK, map[string]any{"permission": legacyPermission(role), "role_name": role, "user": u})
}

func (s *Server) handleRepo(w http.ResponseWriter, r *http.Request) {
	s.withRepo(w, r, func(st *repoState, name string) {
		writeJSON(w, http.StatusOK, s.viewOf(r, st, name).fullRepo(name))
	})
}

func (s *Server) handlePull(w http.ResponseWriter, r *http.Request) {
	s.withIssue(w, r, func(v view, is *issue) {
		if is.Pull == nil {
			notFound(w)
			return
		}
		writeObject(w, v.pull(is), is.UpdatedAt)
	})
}

func (s *Server) handleRateLimit(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	core := map[string]any{"limit": s.opts.RateLimit, "remaining": s.opts.RateLimit - s.used,
		"used": s.used, "reset": s.resetAt.Unix()}
	search := map[string]any{"limit": 30, "remaining": 30, "used": 0, "reset": s.resetAt.Unix()}
	writeJSON(w, http.StatusOK, map[string]any{"resources": map[string]any{"core": core, "search": search}, "rate": core})
}
