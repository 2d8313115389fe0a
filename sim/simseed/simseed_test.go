package simseed

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestParseExample(t *testing.T) {
	f, err := os.Open("../../examples/sim/seed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sd, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := sd.ApplyJira(jirasim.New(sd.JiraOptions(jirasim.Options{})))
	if err != nil || len(keys) != 1 || keys[0] != "PROJ-1" {
		t.Fatalf("ApplyJira = %v, %v", keys, err)
	}
	if email, token := sd.JiraCredentials(); email != "fullsend-bot@example.com" || token != "sim-token" {
		t.Errorf("jira credentials %q %q", email, token)
	}
	gh, err := sd.NewGitHub()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gh.Handler())
	defer srv.Close()
	cases := []struct {
		path, token string
		want        int
		body        string
	}{
		{"/repos/acme/platform/collaborators/alice/permission", "sim-token", 200, `"permission":"write"`},
		{"/repos/acme/platform/collaborators/alice/permission", "other", 401, ""},
		{"/repos/acme/platform/collaborators/bob-outside/permission", "sim-token", 200, `"permission":"read"`},
		{"/repos/acme/other", "sim-token", 404, ""},
		{"/repos/acme/platform/issues/1/comments", "sim-token", 200, `"body":"/fs-triage please"`},
	}
	for _, tc := range cases {
		code, body := get(t, srv.URL+tc.path, tc.token)
		if code != tc.want || !strings.Contains(body, tc.body) {
			t.Errorf("GET %s with %s: %d %s", tc.path, tc.token, code, body)
		}
	}
	if sd.GitLabToken() != "sim-token" || sd.GitHubToken() != "sim-token" {
		t.Errorf("tokens %q %q", sd.GitLabToken(), sd.GitHubToken())
	}
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown top key", "github: {}\nbitbucket: {}\n", "field bitbucket not found"},
		{"unknown repo key", "github:\n  repositories:\n    - {full_name: a/b, colaborators: []}\n", "field colaborators not found"},
		{"bad full name", "github:\n  repositories:\n    - {full_name: nope}\n", `github.repositories[0]: full_name "nope": want owner/name`},
		{"twice", "github:\n  repositories:\n    - {full_name: a/b}\n    - {full_name: a/b}\n", "repositories[1]: repository a/b is declared twice"},
		{"collaborator", "github:\n  repositories:\n    - full_name: a/b\n      collaborators: [{login: x}]\n", "collaborators[0]: want a login and a permission"},
		{"comment author", "github:\n  repositories:\n    - full_name: a/b\n      issues: [{author: x, comments: [{body: y}]}]\n", "issues[0]: the issue and each comment want an author"},
		{"jira strict", "jira:\n  projects: [{key: \"1\"}]\n", "projects[0]: invalid key"},
		{"jira unknown", "jira:\n  projcts: []\n", "projcts"},
		{"jira token type", "jira:\n  token: [a]\n", "jira.token: want a string"},
		{"legacy jira json", `{"projects":[{"key":"1"}]}`, "projects[0]: invalid key"},
		{"not yaml", "jira: [\n", "seed:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestLegacyJiraSeed(t *testing.T) {
	sd, err := Parse(strings.NewReader(`{"myself":"bot","projects":[{"key":"PROJ"}],"issues":[{"project":"PROJ"}]}`))
	if err != nil || sd.Jira == nil || sd.GitHub != nil || sd.GitLab != nil {
		t.Fatalf("Parse = %+v, %v", sd, err)
	}
	if keys, err := sd.ApplyJira(jirasim.New(jirasim.Options{})); err != nil || len(keys) != 1 {
		t.Errorf("ApplyJira = %v, %v", keys, err)
	}
}
