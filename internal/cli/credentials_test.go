package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// pollConfig is a configuration directory with one poll input of type
// driver at base, printing its plan.
func pollConfig(t *testing.T, forge, driver, base string) string {
	t.Helper()
	jql := ""
	if driver == "jira-poll" {
		jql = "\n      project: PROJ\n      queries: [project = PROJ]"
	}
	return testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nforge: " + forge + "\nagents:\n  - name: triage\n    source: harness/triage.yaml\n" +
			"poll:\n  input_drivers:\n    - type: " + driver + "\n      connection:\n        base_url: " + base +
			jql + "\n  output_driver: json\n",
		"harness/triage.yaml": "role: triage\ntrigger: >-\n  event.transition.kind == \"comment_added\"\nrun:\n  command: [\"true\"]\n",
	})
}

// TestMissingCredentialIsExit2: every driver that needs a credential
// refuses to start without it, exit 2 naming the variable, before any
// output (a forgotten token must not read as "nothing to do").
func TestMissingCredentialIsExit2(t *testing.T) {
	examples := filepath.Join("..", "..", "examples")
	ghEvent := filepath.Join(examples, "events", "github-issue-comment.json")
	glEvent := filepath.Join(examples, "events", "gitlab-issue-note.json")
	const jira, github, gitlab = "http://127.0.0.1:1", "http://127.0.0.1:1/", "http://127.0.0.1:1/api/v4"
	cases := []struct {
		name string
		env  map[string]string
		args func(t *testing.T) []string
		want string
	}{
		{"dispatch gha-event", map[string]string{"GITHUB_API_URL": github}, func(*testing.T) []string {
			return []string{"--config-dir", filepath.Join(examples, ".fullsend"), "dispatch", "--input-driver", "gha-event",
				"--event-name", "issue_comment", "--input-file", ghEvent}
		}, "set GITHUB_TOKEN or GH_TOKEN"},
		{"dispatch gitlab-event", map[string]string{"GITLAB_API_URL": gitlab}, func(*testing.T) []string {
			return []string{"--config-dir", filepath.Join(examples, ".fullsend"), "dispatch", "--input-driver", "gitlab-event",
				"--input-file", glEvent}
		}, "set GITLAB_TOKEN"},
		{"poll jira-poll", nil, func(t *testing.T) []string {
			return []string{"--config-dir", pollConfig(t, "github", "jira-poll", jira), "poll"}
		}, "JIRA_TOKEN"},
		{"poll --dry-run jira-poll", nil, func(t *testing.T) []string {
			return []string{"--config-dir", pollConfig(t, "github", "jira-poll", jira), "poll", "--dry-run"}
		}, "JIRA_TOKEN"},
		{"status jira-poll", nil, func(t *testing.T) []string {
			return []string{"--config-dir", pollConfig(t, "github", "jira-poll", jira), "status"}
		}, "JIRA_TOKEN"},
		{"poll github-poll", nil, func(t *testing.T) []string {
			return []string{"--config-dir", pollConfig(t, "github", "github-poll", github), "poll"}
		}, "GITHUB_TOKEN"},
		{"poll gitlab-poll", nil, func(t *testing.T) []string {
			return []string{"--config-dir", pollConfig(t, "gitlab", "gitlab-poll", gitlab), "poll"}
		}, "GITLAB_TOKEN"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tc.env, append([]string{"--log-format", "json"}, tc.args(t)...)...)
			if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d (want 2), stdout %q, stderr lacks %q:\n%s", code, out, tc.want, errs)
			}
		})
	}
}
