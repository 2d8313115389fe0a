package gitlabsim

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
)

// maxBody bounds request bodies the emulator reads.
const maxBody = 1 << 20

// createBody is the JSON body of POST /projects/:id/pipeline.
type createBody struct {
	Ref       string `json:"ref"`
	Variables []struct {
		Key          string `json:"key"`
		Value        string `json:"value"`
		VariableType string `json:"variable_type"`
	} `json:"variables"`
	Inputs map[string]any `json:"inputs"`
}

// parseCreate decodes a create-pipeline body; it returns a GitLab-style
// error message when the body is unusable.
func parseCreate(b []byte) (ref string, vars map[string]string, msg string) {
	var cb createBody
	if err := json.Unmarshal(b, &cb); err != nil {
		return "", nil, "body is not a JSON object: " + err.Error()
	}
	if cb.Ref == "" {
		return "", nil, "ref is missing"
	}
	vars = map[string]string{}
	for i, v := range cb.Variables {
		if v.Key == "" {
			return "", nil, "variables[" + strconv.Itoa(i) + "][key] is missing"
		}
		if v.VariableType != "" && v.VariableType != "env_var" && v.VariableType != "file" {
			return "", nil, "variables[" + strconv.Itoa(i) + "][variable_type] does not have a valid value"
		}
		vars[v.Key] = v.Value
	}
	return cb.Ref, vars, ""
}

// dispatch serves one routed request.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, rt route) {
	var body []byte
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil || len(b) > maxBody {
			writeErr(w, http.StatusBadRequest, "request body unreadable or too large")
			return
		}
		body = b
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rt.endpoint == "get_user" || rt.endpoint == "current_user" {
		s.getUser(w, rt)
		return
	}
	proj := s.st.byPath[rt.project]
	if id, err := strconv.ParseInt(rt.project, 10, 64); err == nil {
		proj = s.st.projects[id]
	}
	if proj == nil {
		writeMsg(w, http.StatusNotFound, "404 Project Not Found")
		return
	}
	base := "http://" + r.Host + "/" + proj.Path
	if s.listWork(w, r, rt, proj) || s.awardOp(w, r, body, rt, proj) {
		return
	}
	switch rt.endpoint {
	case "get_project":
		writeJSON(w, http.StatusOK, map[string]any{"id": proj.ID, "path_with_namespace": proj.Path, "web_url": base})
	case "create_pipeline":
		ref, vars, msg := parseCreate(body)
		if msg != "" {
			writeErr(w, http.StatusBadRequest, msg)
			return
		}
		if !slices.Contains(s.opts.Refs, ref) {
			writeJSON(w, http.StatusBadRequest, map[string]any{"message": map[string][]string{"base": {"Reference not found"}}})
			return
		}
		p := s.createLocked(proj, ref, "api", vars)
		writeJSON(w, http.StatusCreated, pipelineJSON(p, base))
	case "list_pipelines":
		s.listPipelines(w, r, proj, base)
	case "get_pipeline", "pipeline_jobs", "pipeline_variables", "cancel_pipeline":
		p := s.st.pipelines[rt.id]
		if p == nil || p.ProjectID != proj.ID {
			writeMsg(w, http.StatusNotFound, "404 Not found")
			return
		}
		s.pipelineOp(w, r, rt.endpoint, p, base)
	case "get_job", "cancel_job":
		j := s.st.jobs[rt.id]
		if j == nil || j.ProjectID != proj.ID {
			writeMsg(w, http.StatusNotFound, "404 Job Not Found")
			return
		}
		if rt.endpoint == "cancel_job" {
			s.st.cancelJob(j, "job")
			writeJSON(w, http.StatusCreated, jobJSON(j, s.st.pipelines[j.PipelineID], base))
			return
		}
		writeJSON(w, http.StatusOK, jobJSON(j, s.st.pipelines[j.PipelineID], base))
	default:
		if !s.workOp(w, r, rt, proj) {
			s.groupOp(w, r, rt, proj, body, base)
		}
	}
}

func (s *Server) pipelineOp(w http.ResponseWriter, r *http.Request, endpoint string, p *Pipeline, base string) {
	switch endpoint {
	case "get_pipeline":
		writeJSON(w, http.StatusOK, pipelineJSON(p, base))
	case "pipeline_variables":
		out := []map[string]string{}
		keys := make([]string, 0, len(p.Variables))
		for k := range p.Variables {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, map[string]string{"key": k, "value": p.Variables[k], "variable_type": "env_var"})
		}
		writeJSON(w, http.StatusOK, out)
	case "pipeline_jobs":
		j := s.st.jobs[p.JobID]
		out := []map[string]any{}
		scope := r.URL.Query()["scope[]"]
		for _, st := range scope {
			if !pipelineStatuses[st] {
				writeErr(w, http.StatusBadRequest, "scope does not have a valid value")
				return
			}
		}
		if len(scope) == 0 || slices.Contains(scope, j.Status) {
			out = append(out, jobJSON(j, p, base))
		}
		writePage(w, r, out)
	case "cancel_pipeline":
		s.st.cancelJob(s.st.jobs[p.JobID], "pipeline")
		writeJSON(w, http.StatusOK, pipelineJSON(p, base))
	}
}

func (s *Server) groupOp(w http.ResponseWriter, r *http.Request, rt route, proj *Project, body []byte, base string) {
	if rt.endpoint == "list_resource_groups" {
		out := []map[string]any{}
		for _, g := range s.st.groups {
			if g.ProjectID == proj.ID {
				out = append(out, groupJSON(g))
			}
		}
		slices.SortFunc(out, func(a, b map[string]any) int { return int(a["id"].(int64) - b["id"].(int64)) })
		writePage(w, r, out)
		return
	}
	g := s.st.groups[rgKey{proj.ID, rt.key}]
	if g == nil {
		writeMsg(w, http.StatusNotFound, "404 Resource Group Not Found")
		return
	}
	switch rt.endpoint {
	case "get_resource_group":
		writeJSON(w, http.StatusOK, groupJSON(g))
	case "upcoming_jobs":
		out := []map[string]any{}
		for _, j := range s.st.waiters(g) {
			out = append(out, jobJSON(j, s.st.pipelines[j.PipelineID], base))
		}
		writePage(w, r, out)
	case "edit_resource_group":
		var eb struct {
			ProcessMode string `json:"process_mode"`
		}
		if err := json.Unmarshal(body, &eb); err != nil {
			writeErr(w, http.StatusBadRequest, "body is not a JSON object")
			return
		}
		switch eb.ProcessMode {
		case "":
		case ModeUnordered, ModeOldestFirst, ModeNewestFirst:
			g.ProcessMode = eb.ProcessMode
			g.UpdatedAt = s.st.now()
		default:
			writeErr(w, http.StatusBadRequest, "process_mode does not have a valid value")
			return
		}
		writeJSON(w, http.StatusOK, groupJSON(g))
	}
}
