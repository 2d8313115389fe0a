package githubsim

// The full shapes of users and repositories GitHub's REST description
// requires (simple-user, repository, minimal-repository,
// full-repository): every URL template and count GitHub sends, so a
// client decoding any field sees what it would see on GitHub.

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// repoEpoch is the creation time every emulated repository reports.
var repoEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// userURLs adds the URL fields of a simple-user.
func (v view) userURLs(out map[string]any, login string) {
	u := v.api + "users/" + login
	out["avatar_url"] = "https://avatars.githubusercontent.com/u/" + itoa(out["id"].(int64)) + "?v=4"
	out["gravatar_id"] = ""
	for k, suffix := range map[string]string{"followers_url": "/followers", "following_url": "/following{/other_user}",
		"gists_url": "/gists{/gist_id}", "starred_url": "/starred{/owner}{/repo}", "subscriptions_url": "/subscriptions",
		"organizations_url": "/orgs", "repos_url": "/repos", "events_url": "/events{/privacy}",
		"received_events_url": "/received_events"} {
		out[k] = u + suffix
	}
}

// repoURLSuffixes are the URL templates of a repository object.
var repoURLSuffixes = map[string]string{
	"archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}", "blobs_url": "/git/blobs{/sha}",
	"branches_url": "/branches{/branch}", "collaborators_url": "/collaborators{/collaborator}",
	"comments_url": "/comments{/number}", "commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}",
	"contents_url": "/contents/{+path}", "contributors_url": "/contributors", "deployments_url": "/deployments",
	"downloads_url": "/downloads", "events_url": "/events", "forks_url": "/forks", "git_commits_url": "/git/commits{/sha}",
	"git_refs_url": "/git/refs{/sha}", "git_tags_url": "/git/tags{/sha}", "hooks_url": "/hooks",
	"issue_comment_url": "/issues/comments{/number}", "issue_events_url": "/issues/events{/number}",
	"issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}", "labels_url": "/labels{/name}",
	"languages_url": "/languages", "merges_url": "/merges", "milestones_url": "/milestones{/number}",
	"notifications_url": "/notifications{?since,all,participating}", "pulls_url": "/pulls{/number}",
	"releases_url": "/releases{/id}", "stargazers_url": "/stargazers", "statuses_url": "/statuses/{sha}",
	"subscribers_url": "/subscribers", "subscription_url": "/subscription", "tags_url": "/tags", "teams_url": "/teams",
	"trees_url": "/git/trees{/sha}",
}

// minimalRepo is a repository as workflow runs embed it (GitHub's
// minimal-repository: names, owner and URL templates).
func (v view) minimalRepo(name string) map[string]any {
	owner, short, _ := strings.Cut(name, "/")
	id := hashID("repo", name)
	api := v.api + "repos/" + name
	out := map[string]any{"id": id, "node_id": "R_" + itoa(id), "name": short, "full_name": name, "private": false,
		"owner": v.user(owner), "html_url": v.s.opts.HTMLBase + "/" + name, "description": nil, "fork": false, "url": api}
	for k, suffix := range repoURLSuffixes {
		out[k] = api + suffix
	}
	return out
}

// fullRepo is a repository object with every field of GitHub's
// repository and full-repository shapes.
func (v view) fullRepo(name string) map[string]any {
	out := v.minimalRepo(name)
	html := v.s.opts.HTMLBase + "/" + name
	host := strings.TrimPrefix(strings.TrimPrefix(v.s.opts.HTMLBase, "https://"), "http://")
	for k, x := range map[string]any{"visibility": "public", "homepage": nil, "language": nil,
		"clone_url": html + ".git", "git_url": "git://" + host + "/" + name + ".git", "ssh_url": "git@" + host + ":" + name + ".git",
		"svn_url": html, "mirror_url": nil, "license": nil, "size": 0, "forks": 0, "forks_count": 0, "stargazers_count": 0,
		"watchers": 0, "watchers_count": 0, "open_issues": 0, "open_issues_count": 0, "network_count": 0,
		"subscribers_count": 0, "has_issues": true, "has_projects": false, "has_wiki": false, "has_pages": false,
		"has_downloads": true, "has_discussions": false, "archived": false, "disabled": false, "is_template": false,
		"topics": []string{}, "pushed_at": ts(repoEpoch), "created_at": ts(repoEpoch), "updated_at": ts(repoEpoch)} {
		out[k] = x
	}
	if st := v.s.repos[name]; st != nil {
		out["default_branch"] = st.DefaultBranch
	}
	return out
}

// repoRaw is minimalRepo encoded once per repository and API base: run
// lists embed it twice in every run.
func (v view) repoRaw(name string) json.RawMessage {
	k := v.api + name
	if b, ok := v.s.repoCache[k]; ok {
		return b
	}
	b, _ := json.Marshal(v.minimalRepo(name))
	if v.s.repoCache == nil {
		v.s.repoCache = map[string]json.RawMessage{}
	}
	v.s.repoCache[k] = b
	return b
}

// commitDoc is the simple-commit of a run's head.
type commitDoc struct {
	ID        string    `json:"id"`
	TreeID    string    `json:"tree_id"`
	Message   string    `json:"message"`
	Timestamp string    `json:"timestamp"`
	Author    committer `json:"author"`
	Committer committer `json:"committer"`
}

type committer struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

func headCommit(sha string, at time.Time) *commitDoc {
	who := committer{"fullsend", "fullsend@example.com"}
	return &commitDoc{ID: sha, TreeID: fakeSHA("tree:" + sha), Message: "emulated commit", Timestamp: ts(at),
		Author: who, Committer: who}
}

// link is a _links entry.
func link(href string) map[string]any { return map[string]any{"href": href} }
