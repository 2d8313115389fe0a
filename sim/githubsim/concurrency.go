package githubsim

// Concurrency groups, as GitHub Actions documents them for
// `concurrency: {group: G, cancel-in-progress: false}` ("Control the
// concurrency of workflows and jobs"): at most one run of a group is in
// progress; a run queued while another of its group holds it is
// pending; and when a run is queued, any existing pending run of the
// group is cancelled and the new one takes its place. Group names are
// case-insensitive. The strictest reading is modelled: a run admitted to
// its group (queued, waiting for a runner) holds the group like one in
// progress, so a second run queued then is pending, and a third cancels
// the second; a re-run (POST …/rerun) is queued again like a new run.
// Ordering among pending runs is not guaranteed by GitHub; with one
// pending run per group there is nothing to order.

import (
	"net/http"
	"strings"
)

// StatusPending is the status of a run waiting for its concurrency
// group.
const StatusPending = "pending"

// EndpointRerunRun is the Calls/Fail name of POST /repos/{o}/{r}/actions/runs/{id}/rerun.
const EndpointRerunRun = "rerun_run"

// groupOf is the run's concurrency group, "" without one. The caller
// holds s.mu.
func (s *Server) groupOf(run *Run) string {
	st := s.repos[run.Repo]
	if st == nil {
		return ""
	}
	wf, ok := st.workflows[run.Workflow]
	if !ok || wf.Concurrency == nil {
		return ""
	}
	return strings.ToLower(wf.Concurrency(run.Inputs))
}

// queue admits a run that was just queued (dispatched or re-run) to its
// concurrency group: queued when no run of the group holds it, else
// pending, cancelling the group's pending run. The caller holds s.mu.
func (s *Server) queue(run *Run) {
	run.Status, run.Conclusion = StatusQueued, ""
	g := s.groupOf(run)
	if g == "" {
		return
	}
	held := false
	for _, o := range s.runs {
		if o == run || o.Repo != run.Repo || s.groupOf(o) != g {
			continue
		}
		switch o.Status {
		case StatusQueued, StatusInProgress:
			held = true
		case StatusPending:
			s.end(o, ConclusionCancelled)
		}
	}
	if held {
		run.Status = StatusPending
	}
}

// end completes run with conclusion and hands its group on to the
// group's pending run. The caller holds s.mu.
func (s *Server) end(run *Run, conclusion string) {
	holder := run.Status == StatusQueued || run.Status == StatusInProgress
	run.Status, run.Conclusion, run.UpdatedAt = StatusCompleted, conclusion, s.stamp()
	g := s.groupOf(run)
	if !holder || g == "" {
		return
	}
	for _, o := range s.runs {
		if o.Repo == run.Repo && o.Status == StatusPending && s.groupOf(o) == g {
			o.Status, o.UpdatedAt = StatusQueued, s.stamp()
			return
		}
	}
}

// handleRerun re-runs a completed run: a new attempt, queued again in
// its concurrency group. A run not completed gets 403, as on GitHub.
func (s *Server) handleRerun(w http.ResponseWriter, r *http.Request) {
	s.withRun(w, r, func(run *Run) {
		if run.Status != StatusCompleted {
			writeError(w, http.StatusForbidden, "This workflow run is not completed")
			return
		}
		run.Attempt = max(run.Attempt, 1) + 1
		run.StartedAt, run.UpdatedAt = s.stamp(), s.stamp()
		s.queue(run)
		writeJSON(w, http.StatusCreated, map[string]any{})
	})
}

// StartRun moves a queued run (it holds its concurrency group, or has
// none) to in_progress, as a runner picking it up would; a pending run
// cannot start.
func (s *Server) StartRun(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r.ID == id {
			if r.Status != StatusQueued {
				return errStart(id, r.Status)
			}
			r.Status, r.UpdatedAt = StatusInProgress, s.stamp()
			return nil
		}
	}
	return errNoRun(id)
}
