package config

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// TestGitLabPollEntry: a gitlab-poll entry needs no queries, reads its
// lookback, takes its base URL from $CI_API_V4_URL (then $GITLAB_API_URL)
// and holds no poll locks.
func TestGitLabPollEntry(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"CI_API_V4_URL first", map[string]string{"CI_API_V4_URL": "https://gitlab.example.com/api/v4", "GITLAB_API_URL": "https://other.example.com/api/v4", "JIRA_BASE_URL": "https://jira.example.com"}, "https://gitlab.example.com/api/v4"},
		{"GITLAB_API_URL next", map[string]string{"GITLAB_API_URL": "https://other.example.com/api/v4", "JIRA_BASE_URL": "https://jira.example.com"}, "https://other.example.com/api/v4"},
		{"never JIRA_BASE_URL", map[string]string{"JIRA_BASE_URL": "https://jira.example.com"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\nrepo: acme/platform\nforge: gitlab\npoll:\n  input_drivers:\n    - type: gitlab-poll\n      lookback: 30m\n      project: acme/platform\n"})
			c, err := Load(dir, func(k string) string { return tc.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			in := c.Poll.InputDrivers[0]
			if in.Type != "gitlab-poll" || in.Lookback != 30*time.Minute || in.Project != "acme/platform" || in.Connection.BaseURL != tc.want {
				t.Fatalf("entry %+v, want base URL %q", in, tc.want)
			}
			if _, ok := c.Poll.LockInput(); ok {
				t.Error("a gitlab-poll entry was taken as the lock input")
			}
		})
	}
}
