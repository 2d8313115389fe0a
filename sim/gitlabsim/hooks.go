package gitlabsim

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// hookTime is the timestamp format of issue, merge request and note
// webhook bodies.
const hookTime = "2006-01-02 15:04:05 UTC"

func hts(t time.Time) string { return t.UTC().Format(hookTime) }

func (s *Server) userHook(id int64) map[string]any {
	u := s.wk.users[id]
	if u == nil {
		u = &User{ID: id, Username: "user" + strconv.FormatInt(id, 10), Name: "user"}
	}
	return map[string]any{"id": u.ID, "name": u.Name, "username": u.Username,
		"avatar_url": WebBase + "/uploads/-/system/user/avatar/" + strconv.FormatInt(u.ID, 10) + "/avatar.png",
		"email":      "[REDACTED]"}
}

func projectHook(p *Project) map[string]any {
	ns, name, _ := strings.Cut(p.Path, "/")
	if i := strings.LastIndex(p.Path, "/"); i >= 0 {
		ns, name = p.Path[:i], p.Path[i+1:]
	}
	web := WebBase + "/" + p.Path
	return map[string]any{"id": p.ID, "name": name, "description": "", "web_url": web, "avatar_url": nil,
		"git_ssh_url": "git@gitlab.example.com:" + p.Path + ".git", "git_http_url": web + ".git",
		"namespace": ns, "visibility_level": 0, "path_with_namespace": p.Path, "default_branch": "main",
		"ci_config_path": nil, "homepage": web, "url": "git@gitlab.example.com:" + p.Path + ".git",
		"ssh_url": "git@gitlab.example.com:" + p.Path + ".git", "http_url": web + ".git"}
}

func repositoryHook(p *Project) map[string]any {
	web := WebBase + "/" + p.Path
	return map[string]any{"name": p.Path[strings.LastIndex(p.Path, "/")+1:], "url": "git@gitlab.example.com:" + p.Path + ".git",
		"description": "", "homepage": web}
}

func encodeHook(v map[string]any) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(b, '\n')
}

func issueURL(p *Project, iid int64) string {
	return WebBase + "/" + p.Path + "/-/issues/" + strconv.FormatInt(iid, 10)
}

func mrURL(p *Project, iid int64) string {
	return WebBase + "/" + p.Path + "/-/merge_requests/" + strconv.FormatInt(iid, 10)
}

var stateIDs = map[string]int{"opened": 1, "closed": 2, "merged": 3, "locked": 4}

// issueAttrs are the issue's attributes as issue and note events carry them.
func (s *Server) issueAttrs(p *Project, is *Issue) map[string]any {
	return map[string]any{"id": is.ID, "iid": is.IID, "title": is.Title, "description": is.Description,
		"author_id": is.AuthorID, "project_id": is.ProjectID, "state": is.State, "state_id": stateIDs[is.State],
		"created_at": hts(is.CreatedAt), "updated_at": hts(is.UpdatedAt), "closed_at": nil, "confidential": false,
		"url": issueURL(p, is.IID), "labels": s.wk.labelsJSON(is.Labels), "assignee_ids": []int64{},
		"assignee_id": nil, "milestone_id": nil, "due_date": nil, "type": "Issue"}
}

func (s *Server) issueHook(p *Project, is *Issue, actor int64, action string, changes map[string]any) []byte {
	attrs := s.issueAttrs(p, is)
	attrs["action"] = action
	if changes == nil {
		changes = map[string]any{}
	}
	return encodeHook(map[string]any{"object_kind": "issue", "event_type": "issue", "user": s.userHook(actor),
		"project": projectHook(p), "object_attributes": attrs, "labels": s.wk.labelsJSON(is.Labels),
		"changes": changes, "repository": repositoryHook(p), "assignees": []any{}})
}

// mrAttrs are the merge request's attributes as merge request and note
// events carry them.
func (s *Server) mrAttrs(p *Project, m *MergeRequest) map[string]any {
	src := s.st.projects[m.SourceProjectID]
	if src == nil {
		src = p
	}
	return map[string]any{"id": m.ID, "iid": m.IID, "target_branch": m.TargetBranch, "source_branch": m.SourceBranch,
		"source_project_id": m.SourceProjectID, "target_project_id": m.ProjectID, "author_id": m.AuthorID,
		"title": m.Title, "description": m.Description, "state": m.State, "state_id": stateIDs[m.State],
		"created_at": hts(m.CreatedAt), "updated_at": hts(m.UpdatedAt), "merge_status": "can_be_merged",
		"detailed_merge_status": "mergeable", "draft": m.Draft, "work_in_progress": m.Draft, "url": mrURL(p, m.IID),
		"source": projectHook(src), "target": projectHook(p), "labels": s.wk.labelsJSON(m.Labels),
		"last_commit": map[string]any{"id": m.SHA, "message": "change\n", "title": "change",
			"timestamp": m.UpdatedAt.UTC().Format(time.RFC3339), "url": WebBase + "/" + src.Path + "/-/commit/" + m.SHA,
			"author": map[string]any{"name": "author", "email": "[REDACTED]"}},
		"head_pipeline_id": nil, "merge_commit_sha": nil, "merge_user_id": nil, "milestone_id": nil,
		"assignee_ids": []int64{}, "reviewer_ids": []int64{}, "blocking_discussions_resolved": true,
		"first_contribution": false}
}

func (s *Server) mergeHook(p *Project, m *MergeRequest, actor int64, action string, changes map[string]any, kv ...string) []byte {
	attrs := s.mrAttrs(p, m)
	attrs["action"] = action
	for i := 0; i+1 < len(kv); i += 2 {
		attrs[kv[i]] = kv[i+1]
	}
	if changes == nil {
		changes = map[string]any{}
	}
	return encodeHook(map[string]any{"object_kind": "merge_request", "event_type": "merge_request",
		"user": s.userHook(actor), "project": projectHook(p), "object_attributes": attrs,
		"labels": s.wk.labelsJSON(m.Labels), "changes": changes, "repository": repositoryHook(p),
		"assignees": []any{}, "reviewers": []any{}})
}

func (s *Server) noteHook(p *Project, n *Note) []byte {
	url := issueURL(p, n.NoteableIID)
	if n.NoteableType == NoteableMergeRequest {
		url = mrURL(p, n.NoteableIID)
	}
	attrs := map[string]any{"id": n.ID, "note": n.Body, "noteable_type": n.NoteableType, "author_id": n.AuthorID,
		"created_at": hts(n.CreatedAt), "updated_at": hts(n.UpdatedAt), "project_id": n.ProjectID,
		"attachment": nil, "line_code": nil, "commit_id": "", "noteable_id": n.NoteableID, "system": n.System,
		"st_diff": nil, "url": url + "#note_" + strconv.FormatInt(n.ID, 10), "action": "create",
		"internal": false, "discussion_id": fakeSHA(n.ID), "type": nil}
	body := map[string]any{"object_kind": "note", "event_type": "note", "user": s.userHook(n.AuthorID),
		"project_id": p.ID, "project": projectHook(p), "object_attributes": attrs, "repository": repositoryHook(p)}
	if n.NoteableType == NoteableMergeRequest {
		body["merge_request"] = s.mrAttrs(p, s.wk.mr(p.ID, n.NoteableIID))
	} else {
		body["issue"] = s.issueAttrs(p, s.wk.issue(p.ID, n.NoteableIID))
	}
	return encodeHook(body)
}
