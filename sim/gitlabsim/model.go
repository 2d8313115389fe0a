package gitlabsim

import (
	"fmt"
	"sort"
	"time"
)

// Job and pipeline statuses, as the GitLab API spells them.
const (
	StatusCreated            = "created"
	StatusWaitingForResource = "waiting_for_resource"
	StatusPreparing          = "preparing"
	StatusPending            = "pending"
	StatusRunning            = "running"
	StatusSuccess            = "success"
	StatusFailed             = "failed"
	StatusCanceled           = "canceled"
	StatusSkipped            = "skipped"
	StatusManual             = "manual"
	StatusScheduled          = "scheduled"
)

// Resource group process modes.
const (
	ModeUnordered   = "unordered"
	ModeOldestFirst = "oldest_first"
	ModeNewestFirst = "newest_first"
)

var pipelineStatuses = map[string]bool{
	StatusCreated: true, StatusWaitingForResource: true, StatusPreparing: true,
	StatusPending: true, StatusRunning: true, StatusSuccess: true, StatusFailed: true,
	StatusCanceled: true, StatusSkipped: true, StatusManual: true, StatusScheduled: true,
}

// Finished reports whether status is terminal.
func Finished(status string) bool {
	switch status {
	case StatusSuccess, StatusFailed, StatusCanceled, StatusSkipped:
		return true
	}
	return false
}

// Project is one emulated project; Path may contain nested groups.
type Project struct {
	ID   int64
	Path string
}

// Pipeline is a snapshot of one emulated pipeline. Status mirrors its
// single agent job.
type Pipeline struct {
	ID        int64
	IID       int64
	ProjectID int64
	Name      string
	Ref       string
	Source    string
	Status    string
	Variables map[string]string
	JobID     int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Job is a snapshot of one emulated job. ResourceGroup is empty when the
// pipeline carried no resource key.
type Job struct {
	ID            int64
	PipelineID    int64
	ProjectID     int64
	Name          string
	Status        string
	ResourceGroup string
	CreatedAt     time.Time
	StartedAt     time.Time
	FinishedAt    time.Time
}

// ResourceGroup is a snapshot of one resource group: at most one job
// (Holder) holds it; waiting jobs are waiting_for_resource.
type ResourceGroup struct {
	ID          int64
	ProjectID   int64
	Key         string
	ProcessMode string
	Holder      int64 // job id, 0 when free
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// CancelRecord is one cancellation the server performed: which job, and
// the status it had at that moment (pending or running means a job that
// held its resource was cancelled).
type CancelRecord struct {
	PipelineID  int64
	JobID       int64
	PriorStatus string
	Via         string // "pipeline" or "job"
}

type rgKey struct {
	project int64
	key     string
}

// state is the mutable model; every method requires s.mu held.
type state struct {
	now        func() time.Time
	nextID     [3]int64 // pipeline, job and resource group sequences
	projects   map[int64]*Project
	byPath     map[string]*Project
	pipelines  map[int64]*Pipeline
	jobs       map[int64]*Job
	groups     map[rgKey]*ResourceGroup
	iids       map[int64]int64
	cancels    []CancelRecord
	autoAssign bool
	defMode    string
}

const (
	seqPipeline = iota
	seqJob
	seqGroup
)

func (st *state) id(seq int) int64 { st.nextID[seq]++; return st.nextID[seq] }

func (st *state) addProject(path string) *Project {
	if p, ok := st.byPath[path]; ok {
		return p
	}
	p := &Project{ID: int64(len(st.projects) + 1), Path: path}
	st.projects[p.ID] = p
	st.byPath[path] = p
	return p
}

// createPipeline makes a pipeline with one agent job. A non-empty group
// puts the job in that resource group.
func (st *state) createPipeline(proj *Project, ref, name, source, jobName, group string, vars map[string]string) *Pipeline {
	now := st.now()
	st.iids[proj.ID]++
	p := &Pipeline{ID: st.id(seqPipeline), IID: st.iids[proj.ID], ProjectID: proj.ID, Name: name, Ref: ref,
		Source: source, Variables: vars, CreatedAt: now, UpdatedAt: now}
	j := &Job{ID: st.id(seqJob), PipelineID: p.ID, ProjectID: proj.ID, Name: jobName, CreatedAt: now, ResourceGroup: group}
	p.JobID = j.ID
	st.pipelines[p.ID] = p
	st.jobs[j.ID] = j
	if group == "" {
		st.setJob(j, StatusPending)
		return p
	}
	g := st.group(proj.ID, group)
	st.setJob(j, StatusWaitingForResource)
	if st.autoAssign && g.Holder == 0 {
		st.assign(g)
	}
	return p
}

func (st *state) group(project int64, key string) *ResourceGroup {
	k := rgKey{project, key}
	if g, ok := st.groups[k]; ok {
		return g
	}
	now := st.now()
	g := &ResourceGroup{ID: st.id(seqGroup), ProjectID: project, Key: key, ProcessMode: st.defMode, CreatedAt: now, UpdatedAt: now}
	st.groups[k] = g
	return g
}

// setJob changes a job's status and mirrors it on its pipeline.
func (st *state) setJob(j *Job, status string) {
	now := st.now()
	j.Status = status
	switch {
	case status == StatusRunning && j.StartedAt.IsZero():
		j.StartedAt = now
	case Finished(status):
		j.FinishedAt = now
	}
	if p := st.pipelines[j.PipelineID]; p != nil {
		p.Status = status
		p.UpdatedAt = now
	}
}

// waiters lists the jobs waiting for g, ordered by g's process mode
// (unordered is modelled as oldest first, which GitLab also may pick).
func (st *state) waiters(g *ResourceGroup) []*Job {
	var w []*Job
	for _, j := range st.jobs {
		if j.ProjectID == g.ProjectID && j.ResourceGroup == g.Key && j.Status == StatusWaitingForResource {
			w = append(w, j)
		}
	}
	sort.Slice(w, func(a, b int) bool {
		if g.ProcessMode == ModeNewestFirst {
			return w[a].PipelineID > w[b].PipelineID
		}
		return w[a].PipelineID < w[b].PipelineID
	})
	return w
}

// assign hands a free group to its next waiter; it returns the job id or 0.
func (st *state) assign(g *ResourceGroup) int64 {
	if g.Holder != 0 {
		return 0
	}
	w := st.waiters(g)
	if len(w) == 0 {
		return 0
	}
	g.Holder = w[0].ID
	st.setJob(w[0], StatusPending)
	return w[0].ID
}

// release frees the group j holds, handing it on when auto-assign is on.
func (st *state) release(j *Job) {
	if j.ResourceGroup == "" {
		return
	}
	g := st.groups[rgKey{j.ProjectID, j.ResourceGroup}]
	if g == nil || g.Holder != j.ID {
		return
	}
	g.Holder = 0
	g.UpdatedAt = st.now()
	if st.autoAssign {
		st.assign(g)
	}
}

// cancelJob cancels j unless it is finished; it records what it cancelled.
func (st *state) cancelJob(j *Job, via string) {
	if Finished(j.Status) {
		return
	}
	st.cancels = append(st.cancels, CancelRecord{PipelineID: j.PipelineID, JobID: j.ID, PriorStatus: j.Status, Via: via})
	st.setJob(j, StatusCanceled)
	st.release(j)
}

func (st *state) finishJob(id int64, status string) error {
	j := st.jobs[id]
	if j == nil {
		return fmt.Errorf("gitlabsim: no job %d", id)
	}
	if status != StatusSuccess && status != StatusFailed {
		return fmt.Errorf("gitlabsim: finish job %d: status %q is not success or failed", id, status)
	}
	if j.Status != StatusPending && j.Status != StatusRunning {
		return fmt.Errorf("gitlabsim: finish job %d: it is %s, not pending or running", id, j.Status)
	}
	st.setJob(j, status)
	st.release(j)
	return nil
}

func (st *state) startJob(id int64) error {
	j := st.jobs[id]
	if j == nil {
		return fmt.Errorf("gitlabsim: no job %d", id)
	}
	if j.Status != StatusPending {
		return fmt.Errorf("gitlabsim: start job %d: it is %s, not pending", id, j.Status)
	}
	st.setJob(j, StatusRunning)
	return nil
}
