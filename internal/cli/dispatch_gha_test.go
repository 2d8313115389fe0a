package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// The sample GitHub payload in examples/events dispatches a triage run when
// the commenter's role can be looked up, and without a token says exactly
// what to set.
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
		name  string
		env   map[string]string
		runs  int
		warns bool
	}{
		{"token", map[string]string{"GITHUB_TOKEN": "sim-token", "GITHUB_API_URL": base}, 1, false},
		{"GH_TOKEN", map[string]string{"GH_TOKEN": "sim-token", "GITHUB_API_URL": base}, 1, false},
		{"no token", map[string]string{"GITHUB_API_URL": base}, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tc.env, args...)
			var plan []map[string]string
			if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || len(plan) != tc.runs {
				t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
			}
			warned := strings.Contains(errs, "set GITHUB_TOKEN or GH_TOKEN to a token that can read the repository's collaborator permissions")
			if warned != tc.warns {
				t.Errorf("token warning %v, want %v: %s", warned, tc.warns, errs)
			}
			if tc.runs == 1 && plan[0]["serialization_key"] != "triage:acme/platform:github:work_item:41" {
				t.Errorf("plan %v", plan[0])
			}
		})
	}
}
