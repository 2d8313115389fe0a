// Package post is `fullsend steer URL TEXT` (docs/steering.md): it posts
// a follow-up as the caller, the same comment a person would write on the
// item, with the caller's own token from the environment. Whether it
// reaches a running agent is decided as for any comment: by its author's
// role, the harness's trigger and steer settings, where the run is.
package post

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	gogithub "github.com/google/go-github/v90/github"
	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/jirakey"
)

// Target is the item a URL names.
type Target struct {
	System string // event.SystemGitHub, SystemGitLab or SystemJira
	Site   string // scheme://host of the URL
	// Repo is owner/name (GitHub) or the project path (GitLab).
	Repo         string
	Number       int64
	MergeRequest bool   // a GitLab merge request
	Key          string // the Jira issue key
}

// ErrURL is a URL that names no item fullsend can post on.
var ErrURL = errors.New("want a GitHub issue or pull request, a GitLab issue or merge request, or a Jira issue URL")

// ParseURL reads an item's web address: https://github.com/o/r/issues/7
// (or /pull/7), https://gitlab.example/group/project/-/issues/7 (or
// /-/merge_requests/7), https://site.atlassian.net/browse/PROJ-7.
func ParseURL(raw string) (Target, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Target{}, fmt.Errorf("%q: %w", raw, ErrURL)
	}
	t := Target{Site: u.Scheme + "://" + u.Host}
	p := strings.Trim(u.Path, "/")
	num := func(s string) bool {
		n, err := strconv.ParseInt(s, 10, 64)
		t.Number = n
		return err == nil && n > 0 && s[0] != '+'
	}
	if key, ok := strings.CutPrefix(p, "browse/"); ok && !strings.Contains(key, "/") {
		if jirakey.ValidIssue(key) {
			t.System, t.Key = event.SystemJira, key
			return t, nil
		}
	}
	if proj, rest, ok := strings.Cut(p, "/-/"); ok {
		kind, n, _ := strings.Cut(rest, "/")
		if (kind == "issues" || kind == "merge_requests") && num(n) && proj != "" {
			t.System, t.Repo, t.MergeRequest = event.SystemGitLab, proj, kind == "merge_requests"
			return t, nil
		}
	}
	if seg := strings.Split(p, "/"); len(seg) == 4 && (seg[2] == "issues" || seg[2] == "pull") && num(seg[3]) {
		t.System, t.Repo = event.SystemGitHub, seg[0]+"/"+seg[1]
		return t, nil
	}
	return Target{}, fmt.Errorf("%q: %w", raw, ErrURL)
}

// ErrNoToken: the caller's token for the item's platform is not set.
var ErrNoToken = errors.New("no token")

// Post posts text on t as the caller and returns the new comment's id.
// Credentials and API bases come from getenv: GITHUB_TOKEN (or
// GH_TOKEN) and GITHUB_API_URL (default api.github.com for github.com,
// else https://host/api/v3); GITLAB_TOKEN and GITLAB_API_URL (default
// https://host/api/v4); JIRA_TOKEN, JIRA_USER_EMAIL (empty: Bearer) and
// JIRA_BASE_URL (default the URL's site).
func Post(ctx context.Context, t Target, text string, getenv func(string) string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", errors.New("the follow-up text is empty")
	}
	switch t.System {
	case event.SystemGitHub:
		return postGitHub(ctx, t, text, getenv)
	case event.SystemGitLab:
		return postGitLab(ctx, t, text, getenv)
	case event.SystemJira:
		return postJira(ctx, t, text, getenv)
	}
	return "", ErrURL
}

func postGitHub(ctx context.Context, t Target, text string, getenv func(string) string) (string, error) {
	env := github.EnvOf(getenv)
	if env.Token == "" {
		return "", fmt.Errorf("%w: set GITHUB_TOKEN (or GH_TOKEN) to your own token", ErrNoToken)
	}
	api := t.Site + "/api/v3"
	if t.Site == "https://github.com" {
		api = github.DefaultAPIURL
	}
	c, err := github.NewClient(setting(getenv, "GITHUB_API_URL", api), env.Token, github.ClientOptions{})
	if err != nil {
		return "", err
	}
	owner, name, _ := strings.Cut(t.Repo, "/")
	p := github.Policy{MaxRetries: 0}
	made, _, err := github.CallFor(ctx, p, func(ctx context.Context) (*gogithub.IssueComment, *gogithub.Response, error) {
		return c.Issues.CreateComment(ctx, owner, name, int(t.Number), &gogithub.IssueComment{Body: &text})
	})
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(made.GetID(), 10), nil
}

func postGitLab(ctx context.Context, t Target, text string, getenv func(string) string) (string, error) {
	token := strings.TrimSpace(getenv("GITLAB_TOKEN"))
	if token == "" {
		return "", fmt.Errorf("%w: set GITLAB_TOKEN to your own token", ErrNoToken)
	}
	api := setting(getenv, "GITLAB_API_URL", t.Site+"/api/v4")
	c, err := gitlab.NewClient(gitlab.Options{APIURL: api, Token: token, MaxRetries: -1})
	if err != nil {
		return "", err
	}
	var n *gl.Note
	if t.MergeRequest {
		n, _, err = c.Notes.CreateMergeRequestNote(t.Repo, t.Number, &gl.CreateMergeRequestNoteOptions{Body: &text}, gl.WithContext(ctx))
	} else {
		n, _, err = c.Notes.CreateIssueNote(t.Repo, t.Number, &gl.CreateIssueNoteOptions{Body: &text}, gl.WithContext(ctx))
	}
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(n.ID, 10), nil
}

func postJira(ctx context.Context, t Target, text string, getenv func(string) string) (string, error) {
	token := strings.TrimSpace(getenv("JIRA_TOKEN"))
	if token == "" {
		return "", fmt.Errorf("%w: set JIRA_TOKEN (and JIRA_USER_EMAIL for an API token) to your own credentials", ErrNoToken)
	}
	base := setting(getenv, "JIRA_BASE_URL", t.Site)
	c, err := jira.New(jira.Options{BaseURL: base, Email: strings.TrimSpace(getenv("JIRA_USER_EMAIL")), Token: token})
	if err != nil {
		return "", err
	}
	return c.AddComment(ctx, t.Key, text)
}

// setting is the environment variable name, trimmed, or def when it is
// empty: the API a target's site implies unless the caller names one.
func setting(getenv func(string) string, name, def string) string {
	if v := strings.TrimSpace(getenv(name)); v != "" {
		return v
	}
	return def
}
