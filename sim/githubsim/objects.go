package githubsim

// The JSON objects of issues, pull requests, users, labels, comments,
// issue events and reviews, in GitHub's published shapes; the REST answers
// and the webhook deliveries share them.

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"time"
)

// view renders one repository's objects; api is the REST base URL ending
// in '/'. The caller holds s.mu.
type view struct {
	s    *Server
	st   *repoState
	repo string
	api  string
}

func (s *Server) viewOf(r *http.Request, st *repoState, repo string) view {
	return view{s: s, st: st, repo: repo, api: apiBase(r)}
}

// hashID is a stable positive id for a name (users, labels, repositories).
func hashID(kind, name string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(kind + ":" + strings.ToLower(name)))
	return int64(h.Sum32()) + 1
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// tsOrNil renders t, or null when it is the zero time.
func tsOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ts(t)
}

// userJSON is a user; a login ending in "[bot]" is a Bot.
func (v view) user(login string) map[string]any {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	out := map[string]any{"login": login, "id": hashID("user", login), "node_id": "U_" + login, "type": typ,
		"site_admin": false, "url": v.api + "users/" + login, "html_url": v.s.opts.HTMLBase + "/" + login}
	v.userURLs(out, login)
	return out
}

func (v view) labels(names []string) []map[string]any {
	out := make([]map[string]any, 0, len(names))
	for _, n := range names {
		out = append(out, v.label(n))
	}
	return out
}

func (v view) label(name string) map[string]any {
	id := hashID("label:"+v.repo, name)
	return map[string]any{"id": id, "node_id": fmt.Sprintf("LA_%d", id), "name": name, "color": fmt.Sprintf("%06x", id&0xffffff),
		"default": false, "description": nil, "url": v.api + "repos/" + v.repo + "/labels/" + name}
}

// association is the author_association of login in the repository.
func (v view) association(login string) string {
	owner, _, _ := strings.Cut(v.repo, "/")
	switch role := v.st.perms[login]; {
	case strings.EqualFold(login, owner):
		return "OWNER"
	case role != "" && role != "none":
		return "COLLABORATOR"
	}
	return "NONE"
}

func (v view) issueURL(n int) string { return fmt.Sprintf("%srepos/%s/issues/%d", v.api, v.repo, n) }

func (v view) htmlURL(is *issue) string {
	kind := "issues"
	if is.Pull != nil {
		kind = "pull"
	}
	return fmt.Sprintf("%s/%s/%s/%d", v.s.opts.HTMLBase, v.repo, kind, is.Number)
}

// issue renders is as the issues API does (pull requests carry a
// "pull_request" key).
func (v view) issue(is *issue) map[string]any {
	u := v.issueURL(is.Number)
	out := map[string]any{
		"id": is.ID, "node_id": fmt.Sprintf("I_%d", is.ID), "number": is.Number, "title": is.Title, "body": is.Body,
		"url": u, "repository_url": v.api + "repos/" + v.repo, "labels_url": u + "/labels{/name}",
		"comments_url": u + "/comments", "events_url": u + "/events", "html_url": v.htmlURL(is),
		"user": v.user(is.Author), "labels": v.labels(is.Labels), "state": is.State, "locked": false,
		"assignee": v.assignee(is), "assignees": v.users(is.Assignees), "milestone": nil, "comments": is.Comments,
		"created_at": ts(is.CreatedAt), "updated_at": ts(is.UpdatedAt), "closed_at": tsOrNil(is.ClosedAt),
		"author_association": v.association(is.Author),
	}
	if is.Pull != nil {
		pu := fmt.Sprintf("%srepos/%s/pulls/%d", v.api, v.repo, is.Number)
		out["pull_request"] = map[string]any{"url": pu, "html_url": v.htmlURL(is),
			"diff_url": v.htmlURL(is) + ".diff", "patch_url": v.htmlURL(is) + ".patch", "merged_at": tsOrNil(is.Pull.MergedAt)}
	}
	return out
}

// repoObject is a repository as API objects embed it.
func (v view) repoObject(name string) map[string]any { return v.fullRepo(name) }

func (v view) branch(name, ref, sha string) map[string]any {
	owner, _, _ := strings.Cut(name, "/")
	var repo any
	if name != "" {
		repo = v.repoObject(name)
	}
	return map[string]any{"label": owner + ":" + ref, "ref": ref, "sha": sha, "repo": repo, "user": v.user(owner)}
}

// pull renders the pull request is (is.Pull set) as the pulls API does.
// A deleted fork's head has a null repo, as GitHub sends it (the
// description does not allow it).
func (v view) pull(is *issue) map[string]any {
	pr := is.Pull
	u := fmt.Sprintf("%srepos/%s/pulls/%d", v.api, v.repo, is.Number)
	head := v.branch(pr.HeadRepo, pr.HeadRef, pr.HeadSHA)
	if pr.HeadRepo == "" {
		head["label"], head["user"] = "unknown:"+pr.HeadRef, v.user(pr.Author)
	}
	statuses := fmt.Sprintf("%srepos/%s/statuses/%s", v.api, v.repo, pr.HeadSHA)
	return map[string]any{
		"id": is.ID, "node_id": fmt.Sprintf("PR_%d", is.ID), "number": is.Number, "title": is.Title, "body": is.Body,
		"url": u, "html_url": v.htmlURL(is), "issue_url": v.issueURL(is.Number),
		"diff_url": v.htmlURL(is) + ".diff", "patch_url": v.htmlURL(is) + ".patch",
		"comments_url": v.issueURL(is.Number) + "/comments", "review_comments_url": u + "/comments",
		"review_comment_url": fmt.Sprintf("%srepos/%s/pulls/comments{/number}", v.api, v.repo),
		"commits_url":        u + "/commits", "statuses_url": statuses,
		"user": v.user(pr.Author), "labels": v.labels(is.Labels), "state": pr.State, "locked": false, "draft": pr.Draft,
		"assignee": v.assignee(is), "assignees": v.users(is.Assignees), "requested_reviewers": []any{}, "requested_teams": []any{}, "milestone": nil,
		"merged": !pr.MergedAt.IsZero(), "merged_at": tsOrNil(pr.MergedAt), "merged_by": nil, "merge_commit_sha": fakeSHA(fmt.Sprintf("merge:%s#%d", v.repo, is.Number)), "auto_merge": nil,
		"mergeable": nil, "mergeable_state": "unknown", "rebaseable": nil, "maintainer_can_modify": false,
		"comments": is.Comments, "review_comments": 0, "commits": 1, "additions": 0, "deletions": 0, "changed_files": 0,
		"created_at": ts(is.CreatedAt), "updated_at": ts(is.UpdatedAt),
		"closed_at": tsOrNil(is.ClosedAt), "author_association": v.association(pr.Author),
		"head": head, "base": v.branch(v.repo, pr.BaseRef, fakeSHA(v.repo+"@"+pr.BaseRef)),
		"_links": map[string]any{"self": link(u), "html": link(v.htmlURL(is)), "issue": link(v.issueURL(is.Number)),
			"comments": link(v.issueURL(is.Number) + "/comments"), "review_comments": link(u + "/comments"),
			"review_comment": link(fmt.Sprintf("%srepos/%s/pulls/comments{/number}", v.api, v.repo)),
			"commits":        link(u + "/commits"), "statuses": link(statuses)},
	}
}

func (v view) comment(c *comment) map[string]any {
	is := v.st.issues[c.Number]
	return map[string]any{
		"id": c.ID, "node_id": fmt.Sprintf("IC_%d", c.ID), "body": c.Body, "user": v.user(c.Author),
		"url":       fmt.Sprintf("%srepos/%s/issues/comments/%d", v.api, v.repo, c.ID),
		"html_url":  fmt.Sprintf("%s#issuecomment-%d", v.htmlURL(is), c.ID),
		"issue_url": v.issueURL(c.Number), "created_at": ts(c.CreatedAt), "updated_at": ts(c.UpdatedAt),
		"author_association": v.association(c.Author),
	}
}

// event renders an issue event; withIssue adds the issue object, as the
// repository-wide listing does.
func (v view) event(e *issueEvent, withIssue bool) map[string]any {
	out := map[string]any{
		"id": e.ID, "node_id": fmt.Sprintf("IE_%d", e.ID), "event": e.Event, "actor": v.user(e.Actor),
		"url":       fmt.Sprintf("%srepos/%s/issues/events/%d", v.api, v.repo, e.ID),
		"commit_id": nil, "commit_url": nil, "created_at": ts(e.CreatedAt), "performed_via_github_app": nil,
	}
	if e.Label != "" {
		l := v.label(e.Label)
		out["label"] = map[string]any{"name": l["name"], "color": l["color"]}
	}
	if withIssue {
		out["issue"] = v.issue(v.st.issues[e.Number])
	}
	return out
}

func (v view) review(rv *review) map[string]any {
	is := v.st.issues[rv.Number]
	return map[string]any{
		"id": rv.ID, "node_id": fmt.Sprintf("PRR_%d", rv.ID), "user": v.user(rv.User), "body": rv.Body,
		"state": rv.State, "commit_id": rv.CommitID, "submitted_at": ts(rv.SubmittedAt),
		"html_url":           fmt.Sprintf("%s#pullrequestreview-%d", v.htmlURL(is), rv.ID),
		"pull_request_url":   fmt.Sprintf("%srepos/%s/pulls/%d", v.api, v.repo, rv.Number),
		"author_association": v.association(rv.User),
		"_links": map[string]any{"html": link(fmt.Sprintf("%s#pullrequestreview-%d", v.htmlURL(is), rv.ID)),
			"pull_request": link(fmt.Sprintf("%srepos/%s/pulls/%d", v.api, v.repo, rv.Number))},
	}
}
