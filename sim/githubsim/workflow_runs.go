package githubsim

// GET /repos/{o}/{r}/actions/workflows/{w}/runs: a workflow's runs, newest
// first, with the `created`, `event`, `status` and `branch` filters and
// pages linked by a Link header, as GitHub answers it.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// EndpointWorkflowRuns is the Calls/Fail name of the workflow runs list.
const EndpointWorkflowRuns = "workflow_runs" // GET /repos/{o}/{r}/actions/workflows/{w}/runs

// DisplayTitle is the title GitHub shows for a run of the shipped run
// workflows (Workflow.RunName overrides it), whose `run-name` is
// "fullsend ${{ inputs.agent }} ${{ fromJSON(inputs.work_item || '{}').idempotency_key || inputs.serialization_key }}".
func DisplayTitle(inputs map[string]string) string {
	var wi struct {
		Key string `json:"idempotency_key"`
	}
	if json.Unmarshal([]byte(inputs["work_item"]), &wi) == nil && wi.Key != "" {
		return "fullsend " + inputs["agent"] + " " + wi.Key
	}
	return "fullsend " + inputs["agent"] + " " + inputs["serialization_key"]
}

func (s *Server) handleWorkflowRuns(w http.ResponseWriter, r *http.Request) {
	s.withRepo(w, r, func(st *repoState, repo string) {
		wf, ok := st.workflow(repo, r.PathValue("workflow"))
		if !ok {
			notFound(w)
			return
		}
		created, err := parseCreated(r.URL.Query().Get("created"))
		if err != nil {
			writeError(w, http.StatusUnprocessableEntity, err.Error())
			return
		}
		s.listRuns(w, r, st, repo, func(run *Run) bool { return run.Workflow == wf.File && created(run.CreatedAt) })
	})
}

// listRuns answers one page of the repo's runs that keep accepts and that
// pass the query's status, branch and event filters, newest first, with
// their display titles and a Link header. The caller holds the state lock.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request, st *repoState, repo string, keep func(*Run) bool) {
	q := r.URL.Query()
	var match []*Run
	for i := len(s.runs) - 1; i >= 0; i-- { // newest first
		run := s.runs[i]
		switch {
		case run.Repo != repo, !keep(run),
			q.Get("status") != "" && q.Get("status") != run.Status && q.Get("status") != run.Conclusion,
			q.Get("branch") != "" && q.Get("branch") != run.Ref,
			q.Get("event") != "" && q.Get("event") != "workflow_dispatch":
			continue
		}
		match = append(match, run)
	}
	out := []runDoc{}
	for _, run := range paginate(w, r, match) {
		out = append(out, s.runJSON(r, run, s.runTitle(st, run)))
	}
	writeRuns(w, out, len(match), true)
}

// parseCreated parses GitHub's `created` search qualifier: >=T, >T, <=T,
// <T, A..B or a bare date or time (T an ISO 8601 date or RFC 3339 time).
func parseCreated(v string) (func(time.Time) bool, error) {
	if v == "" {
		return func(time.Time) bool { return true }, nil
	}
	bad := fmt.Errorf("created: %q is not a date qualifier", v)
	for _, op := range []string{">=", "<=", ">", "<"} {
		if rest, ok := strings.CutPrefix(v, op); ok {
			t, err := parseWhen(rest)
			if err != nil {
				return nil, bad
			}
			return func(c time.Time) bool {
				switch op {
				case ">=":
					return !c.Before(t)
				case "<=":
					return !c.After(t)
				case ">":
					return c.After(t)
				}
				return c.Before(t)
			}, nil
		}
	}
	if a, b, ok := strings.Cut(v, ".."); ok {
		ta, err1 := parseWhen(a)
		tb, err2 := parseWhen(b)
		if err1 != nil || err2 != nil {
			return nil, bad
		}
		return func(c time.Time) bool { return !c.Before(ta) && !c.After(tb) }, nil
	}
	t, err := parseWhen(v)
	if err != nil {
		return nil, bad
	}
	return func(c time.Time) bool { return !c.Before(t) && c.Before(t.Add(24*time.Hour)) }, nil
}

func parseWhen(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Parse(time.DateOnly, s)
}
