package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// The sample GitHub payload in examples/events dispatches a triage run when
// the commenter's role can be looked up; without a token it exits 2 and
// says exactly what to set.
func TestDispatchSampleGitHubPayload(t *testing.T) {
	gh := githubsim.New(githubsim.Options{Token: "sim-token", Repos: []githubsim.Repo{{FullName: "acme/platform"}}})
	base, err := gh.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer gh.Close()
	if err := gh.SetPermission("acme/platform", "alice", "write"); err != nil {
		t.Fatal(err)
	}
	args := []string{"--config-dir", filepath.Join("..", "..", "examples", ".fullsend"), "--log-format", "json",
		"dispatch", "--input-driver", "gha-event", "--event-name", "issue_comment",
		"--input-file", filepath.Join("..", "..", "examples", "events", "github-issue-comment.json")}
	cases := []struct {
		name string
		env  map[string]string
		code int
	}{
		{"token", map[string]string{"GITHUB_TOKEN": "sim-token", "GITHUB_API_URL": base}, 0},
		{"GH_TOKEN", map[string]string{"GH_TOKEN": "sim-token", "GITHUB_API_URL": base}, 0},
		{"no token", map[string]string{"GITHUB_API_URL": base}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tc.env, args...)
			if tc.code != 0 {
				want := "set GITHUB_TOKEN or GH_TOKEN to a token that can read the repository's collaborator permissions"
				if code != tc.code || out != "" || !strings.Contains(errs, want) {
					t.Fatalf("exit %d (want %d), stdout %q, stderr %s", code, tc.code, out, errs)
				}
				return
			}
			var plan []map[string]string
			if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || len(plan) != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
			}
			if plan[0]["serialization_key"] != "triage:acme/platform:github:work_item:41" {
				t.Errorf("plan %v", plan[0])
			}
		})
	}
}
