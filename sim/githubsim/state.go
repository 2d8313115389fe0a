package githubsim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Run statuses and conclusions, as GitHub reports them.
const (
	StatusQueued     = "queued"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"

	ConclusionSuccess   = "success"
	ConclusionCancelled = "cancelled"
	ConclusionFailure   = "failure"
)

// Repo seeds one repository.
type Repo struct {
	FullName      string // owner/name
	DefaultBranch string // default "main"
	Branches      []string
	Tags          []string
	Workflows     []Workflow
}

// Workflow is a workflow file that accepts workflow_dispatch.
type Workflow struct {
	File string // e.g. fullsend-run.yml
	// Inputs, when non-nil, declares the accepted inputs; a dispatch with an
	// input outside it is rejected with 422 like GitHub does. Required lists
	// inputs that must be present.
	Inputs   []string
	Required []string
	// RunName renders a run's display title from its inputs (the
	// workflow's `run-name`); nil uses DisplayTitle.
	RunName func(inputs map[string]string) string
	// Concurrency renders the run's concurrency group from its inputs
	// (the workflow's `concurrency.group` with cancel-in-progress: false,
	// concurrency.go); nil, or "", puts the run in no group.
	Concurrency func(inputs map[string]string) string
}

// PullRequest seeds one pull request for GET /repos/{o}/{r}/pulls/{n}.
type PullRequest struct {
	Number   int
	Author   string
	HeadRepo string // "" means the head repository was deleted
	HeadRef  string
	HeadSHA  string
	BaseRef  string
	State    string    // open | closed, default open
	Draft    bool      // a draft (SetDraft)
	MergedAt time.Time // when it was merged (MergePull); zero: not merged
}

// Run is a dispatched workflow run as the emulator records it.
type Run struct {
	ID         int64
	Repo       string
	Workflow   string
	Ref        string
	Inputs     map[string]string
	Status     string
	Conclusion string
	HTMLURL    string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	StartedAt  time.Time // run_started_at: the creation, or the last re-run
	Attempt    int       // run_attempt: 1, then one more per re-run
	title      string    // the display title, once a listing rendered it
}

type repoState struct {
	Repo
	refs      map[string]bool
	workflows map[string]Workflow
	perms     map[string]string // login -> admin|maintain|write|triage|read|none
	tracker                     // issues, pull requests, comments, events, reviews
}

// AddRepo adds or replaces a repository.
func (s *Server) AddRepo(r Repo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addRepoLocked(r)
}

func (s *Server) addRepoLocked(r Repo) {
	s.repoCache = nil
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	st := &repoState{Repo: r, refs: map[string]bool{}, workflows: map[string]Workflow{},
		perms: map[string]string{}, tracker: tracker{issues: map[int]*issue{}, next: 1}}
	st.refs[r.DefaultBranch] = true
	for _, b := range r.Branches {
		st.refs[b] = true
	}
	for _, t := range r.Tags {
		st.refs[t] = true
	}
	for _, w := range r.Workflows {
		st.workflows[w.File] = w
	}
	s.repos[r.FullName] = st
}

// AddWorkflow registers a workflow in an existing repository.
func (s *Server) AddWorkflow(repo string, w Workflow) error {
	return s.editRepo(repo, func(st *repoState) { st.workflows[w.File] = w })
}

// AddBranch makes ref dispatchable in repo.
func (s *Server) AddBranch(repo, ref string) error {
	return s.editRepo(repo, func(st *repoState) { st.refs[ref] = true })
}

// SetPermission sets login's role on repo (admin, maintain, write, triage,
// read, none, or a custom role name). Unknown logins get 404 like
// non-existent users do on GitHub.
func (s *Server) SetPermission(repo, login, role string) error {
	return s.editRepo(repo, func(st *repoState) { st.perms[login] = role })
}

// AddPullRequest registers (or replaces the head and base of) a pull
// request in repo; it is listed like any other pull request, without a
// delivery. OpenIssue opens one with a delivery.
func (s *Server) AddPullRequest(repo string, pr PullRequest) error {
	if pr.State == "" {
		pr.State = "open"
	}
	return s.editRepo(repo, func(st *repoState) {
		is := st.issues[pr.Number]
		if is == nil {
			now := s.stamp()
			is = &issue{ID: s.newID(), Number: pr.Number, Author: pr.Author, Title: fmt.Sprintf("Pull request %d", pr.Number),
				CreatedAt: now, UpdatedAt: now}
			st.insert(is)
		}
		is.State, is.Pull = pr.State, &pr
		if pr.State == "closed" && is.ClosedAt.IsZero() {
			is.ClosedAt = is.UpdatedAt
		}
	})
}

// editRepo runs edit on repo's state with s.mu held, or fails when there is
// no such repository.
func (s *Server) editRepo(repo string, edit func(st *repoState)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.repos[repo]
	if !ok {
		return fmt.Errorf("githubsim: no repository %s", repo)
	}
	edit(st)
	return nil
}

// Runs lists every dispatched run in dispatch order (copies).
func (s *Server) Runs() []Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Run, 0, len(s.runs))
	for _, r := range s.runs {
		c := *r
		c.Inputs = maps.Clone(r.Inputs)
		out = append(out, c)
	}
	return out
}

// Run returns one run by id.
func (s *Server) Run(id int64) (Run, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r.ID == id {
			c := *r
			c.Inputs = maps.Clone(r.Inputs)
			return c, true
		}
	}
	return Run{}, false
}

// SetRunStatus moves a run to status (and conclusion when completed); a
// run completed hands its concurrency group on to the group's pending
// run.
func (s *Server) SetRunStatus(id int64, status, conclusion string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r.ID == id {
			if status == StatusCompleted {
				s.end(r, conclusion)
				return nil
			}
			r.Status, r.Conclusion, r.UpdatedAt = status, conclusion, s.stamp()
			return nil
		}
	}
	return errNoRun(id)
}

func errNoRun(id int64) error { return fmt.Errorf("githubsim: no run %d", id) }

func errStart(id int64, status string) error {
	return fmt.Errorf("githubsim: run %d is %s, not queued: it cannot start", id, status)
}

// CompleteRun marks a run completed with conclusion (default success).
func (s *Server) CompleteRun(id int64, conclusion string) error {
	if conclusion == "" {
		conclusion = ConclusionSuccess
	}
	return s.SetRunStatus(id, StatusCompleted, conclusion)
}

// Calls returns how many requests reached endpoint (see the Endpoint
// constants), including failed and faulted ones.
func (s *Server) Calls(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[endpoint]
}

// WaitCalls blocks until at least n requests have reached endpoint, which
// also means any fault injected for them has been taken, or until ctx ends.
func (s *Server) WaitCalls(ctx context.Context, endpoint string, n int) error {
	for {
		s.mu.Lock()
		got, called := s.calls[endpoint], s.called
		s.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-called:
		case <-ctx.Done():
			return fmt.Errorf("githubsim: %d of %d calls to %s: %w", got, n, endpoint, ctx.Err())
		}
	}
}

// Endpoints lists the endpoints that were called at least once, sorted.
func (s *Server) Endpoints() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.calls))
}
