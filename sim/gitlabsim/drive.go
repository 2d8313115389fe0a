package gitlabsim

import (
	"fmt"
	"maps"
	"sort"
)

// ResourceKeyVar is the pipeline variable that names a pipeline's scope:
// the pipeline is named NamePrefix+value and its job joins resource group
// GroupPrefix+value.
const (
	ResourceKeyVar = "FULLSEND_RESOURCE_KEY"
	NamePrefix     = "fullsend:"
	GroupPrefix    = "fullsend-"
)

// CreatePipeline creates a pipeline as the API would (source "api"), for
// tests that set up state without going through HTTP.
func (s *Server) CreatePipeline(project, ref string, vars map[string]string) (Pipeline, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	proj := s.st.byPath[project]
	if proj == nil {
		return Pipeline{}, fmt.Errorf("gitlabsim: no project %q", project)
	}
	p := s.createLocked(proj, ref, "api", vars)
	return s.pipelineCopy(p), nil
}

// createLocked derives name and resource group from the variables.
func (s *Server) createLocked(proj *Project, ref, source string, vars map[string]string) *Pipeline {
	name, group := "", ""
	if rk := vars[ResourceKeyVar]; rk != "" {
		name, group = NamePrefix+rk, GroupPrefix+rk
	}
	return s.st.createPipeline(proj, ref, name, source, s.opts.JobName, group, maps.Clone(vars))
}

func (s *Server) pipelineCopy(p *Pipeline) Pipeline {
	c := *p
	c.Variables = maps.Clone(p.Variables)
	return c
}

// Pipeline returns a snapshot of pipeline id.
func (s *Server) Pipeline(id int64) (Pipeline, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.pipelines[id]
	if p == nil {
		return Pipeline{}, false
	}
	return s.pipelineCopy(p), true
}

// Pipelines returns snapshots of every pipeline of project, oldest first.
func (s *Server) Pipelines(project string) []Pipeline {
	s.mu.Lock()
	defer s.mu.Unlock()
	proj := s.st.byPath[project]
	var out []Pipeline
	for _, p := range s.st.pipelines {
		if proj != nil && p.ProjectID == proj.ID {
			out = append(out, s.pipelineCopy(p))
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// Job returns a snapshot of job id.
func (s *Server) Job(id int64) (Job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.st.jobs[id]
	if j == nil {
		return Job{}, false
	}
	return *j, true
}

// Group returns a snapshot of the resource group key of project.
func (s *Server) Group(project, key string) (ResourceGroup, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	proj := s.st.byPath[project]
	if proj == nil {
		return ResourceGroup{}, false
	}
	g := s.st.groups[rgKey{proj.ID, key}]
	if g == nil {
		return ResourceGroup{}, false
	}
	return *g, true
}

// Waiting returns the pipelines of project whose job waits for resource
// group key (waiting_for_resource), oldest first. GitLab keeps every
// waiting job of a group, whatever its process mode; one job at a time
// holds the group (Group's Holder).
func (s *Server) Waiting(project, key string) []Pipeline {
	s.mu.Lock()
	defer s.mu.Unlock()
	proj := s.st.byPath[project]
	if proj == nil {
		return nil
	}
	g := s.st.groups[rgKey{proj.ID, key}]
	if g == nil {
		return nil
	}
	var out []Pipeline
	for _, j := range s.st.waiters(&ResourceGroup{ProjectID: g.ProjectID, Key: g.Key, ProcessMode: ModeOldestFirst}) {
		out = append(out, s.pipelineCopy(s.st.pipelines[j.PipelineID]))
	}
	return out
}

// Cancels returns every cancellation performed so far, in order.
func (s *Server) Cancels() []CancelRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CancelRecord(nil), s.st.cancels...)
}

// StartJob moves a pending job (it holds its resource) to running, as a
// runner picking it up would.
func (s *Server) StartJob(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.startJob(id)
}

// FinishJob ends a pending or running job with success or failed and
// releases its resource group; unless ManualAssign is set, the next waiter
// acquires it in the group's process mode.
func (s *Server) FinishJob(id int64, status string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.finishJob(id, status)
}

// Acquire hands the free resource group key of project to its next waiter
// (by process mode) and returns that job's id; 0 when the group is held or
// nobody waits.
func (s *Server) Acquire(project, key string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	proj := s.st.byPath[project]
	if proj == nil {
		return 0, fmt.Errorf("gitlabsim: no project %q", project)
	}
	g := s.st.groups[rgKey{proj.ID, key}]
	if g == nil {
		return 0, fmt.Errorf("gitlabsim: project %q has no resource group %q", project, key)
	}
	return s.st.assign(g), nil
}

// SetManualAssign switches between automatic hand-over of free resource
// groups (false) and test-driven Acquire calls (true).
func (s *Server) SetManualAssign(manual bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.autoAssign = !manual
}
