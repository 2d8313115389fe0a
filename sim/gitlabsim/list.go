package gitlabsim

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"
)

// listQuery is a validated GET /projects/:id/pipelines query.
type listQuery struct {
	name, status, ref, source, scope string
	orderBy, sort                    string
	page, perPage                    int
	createdAfter, createdBefore      time.Time // zero: no bound
}

// parseListQuery validates the filters GitLab documents; it returns an
// error message naming the bad parameter.
func parseListQuery(q url.Values) (listQuery, string) {
	lq := listQuery{name: q.Get("name"), status: q.Get("status"), ref: q.Get("ref"), source: q.Get("source"),
		scope: q.Get("scope"), orderBy: q.Get("order_by"), sort: q.Get("sort"), page: 1, perPage: 20}
	if lq.status != "" && !pipelineStatuses[lq.status] {
		return lq, "status does not have a valid value"
	}
	switch lq.scope {
	case "", "running", "pending", "finished", "branches", "tags":
	default:
		return lq, "scope does not have a valid value"
	}
	switch lq.orderBy {
	case "":
		lq.orderBy = "id"
	case "id", "status", "ref", "updated_at", "user_id":
	default:
		return lq, "order_by does not have a valid value"
	}
	switch lq.sort {
	case "":
		lq.sort = "desc"
	case "asc", "desc":
	default:
		return lq, "sort does not have a valid value"
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"page", &lq.page}, {"per_page", &lq.perPage}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return lq, p.name + " is invalid"
			}
			*p.dst = n
		}
	}
	lq.perPage = min(lq.perPage, 100)
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"created_after", &lq.createdAfter}, {"created_before", &lq.createdBefore}} {
		if v := q.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return lq, p.name + " is invalid"
			}
			*p.dst = t
		}
	}
	return lq, ""
}

func (lq listQuery) match(p *Pipeline) bool {
	switch {
	case lq.name != "" && p.Name != lq.name,
		lq.status != "" && p.Status != lq.status,
		lq.ref != "" && p.Ref != lq.ref,
		lq.source != "" && p.Source != lq.source,
		!lq.createdAfter.IsZero() && p.CreatedAt.Before(lq.createdAfter),
		!lq.createdBefore.IsZero() && p.CreatedAt.After(lq.createdBefore):
		return false
	}
	switch lq.scope {
	case "running":
		return p.Status == StatusRunning
	case "pending":
		return p.Status == StatusPending
	case "finished":
		return Finished(p.Status)
	case "tags":
		return false
	}
	return true
}

// listPipelines serves the filtered, ordered, paginated pipelines list.
// Requires s.mu.
func (s *Server) listPipelines(w http.ResponseWriter, r *http.Request, proj *Project, base string) {
	lq, msg := parseListQuery(r.URL.Query())
	if msg != "" {
		writeErr(w, http.StatusBadRequest, msg)
		return
	}
	var all []*Pipeline
	for _, p := range s.st.pipelines {
		if p.ProjectID == proj.ID && lq.match(p) {
			all = append(all, p)
		}
	}
	less := func(a, b *Pipeline) bool {
		switch lq.orderBy {
		case "status":
			if a.Status != b.Status {
				return a.Status < b.Status
			}
		case "ref":
			if a.Ref != b.Ref {
				return a.Ref < b.Ref
			}
		case "updated_at":
			if !a.UpdatedAt.Equal(b.UpdatedAt) {
				return a.UpdatedAt.Before(b.UpdatedAt)
			}
		}
		return a.ID < b.ID
	}
	sort.Slice(all, func(i, j int) bool {
		if lq.sort == "desc" {
			return less(all[j], all[i])
		}
		return less(all[i], all[j])
	})
	from, to := setPage(w, r, len(all))
	out := make([]map[string]any, 0, to-from)
	for _, p := range all[from:to] {
		out = append(out, pipelineInfoJSON(p, base))
	}
	writeJSON(w, http.StatusOK, out)
}

// apiTime is the timestamp format of GitLab's REST answers: UTC with
// milliseconds ("2026-12-01T20:00:25.553Z").
const apiTime = "2006-01-02T15:04:05.000Z"

func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(apiTime)
}

func pipelineInfoJSON(p *Pipeline, base string) map[string]any {
	return map[string]any{
		"id": p.ID, "iid": p.IID, "project_id": p.ProjectID, "status": p.Status, "source": p.Source,
		"ref": p.Ref, "sha": fakeSHA(p.ID), "name": p.Name, "web_url": base + "/-/pipelines/" + strconv.FormatInt(p.ID, 10),
		"created_at": ts(p.CreatedAt), "updated_at": ts(p.UpdatedAt),
	}
}

func pipelineJSON(p *Pipeline, base string) map[string]any {
	m := pipelineInfoJSON(p, base)
	m["tag"] = false
	m["before_sha"] = "0000000000000000000000000000000000000000"
	m["detailed_status"] = map[string]any{"text": p.Status, "label": p.Status, "group": p.Status}
	return m
}

func jobJSON(j *Job, p *Pipeline, base string) map[string]any {
	return map[string]any{
		"id": j.ID, "name": j.Name, "status": j.Status, "stage": "run", "ref": p.Ref, "tag": false,
		"allow_failure": false, "created_at": ts(j.CreatedAt), "started_at": ts(j.StartedAt),
		"finished_at": ts(j.FinishedAt), "web_url": base + "/-/jobs/" + strconv.FormatInt(j.ID, 10),
		"pipeline": map[string]any{"id": p.ID, "project_id": p.ProjectID, "ref": p.Ref, "sha": fakeSHA(p.ID), "status": p.Status},
	}
}

func groupJSON(g *ResourceGroup) map[string]any {
	return map[string]any{"id": g.ID, "key": g.Key, "process_mode": g.ProcessMode,
		"created_at": ts(g.CreatedAt), "updated_at": ts(g.UpdatedAt)}
}

// fakeSHA is a stable 40-hex commit id for a pipeline.
func fakeSHA(id int64) string {
	s := strconv.FormatInt(id, 16)
	for len(s) < 40 {
		s = "0" + s
	}
	return s
}
