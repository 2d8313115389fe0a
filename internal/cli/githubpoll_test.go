package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestPollGitHub: `fullsend poll` with a github-poll input plans the run
// of a comment older than the grace period and never prints the token; a
// configuration without a repository exits 2 naming `repo`.
func TestPollGitHub(t *testing.T) {
	clk := fakeclock.New(time.Now().Add(-10 * time.Minute))
	s := githubsim.New(githubsim.Options{Token: "ghs_s3cret", Now: clk.Now,
		Repos: []githubsim.Repo{{FullName: "acme/platform", Workflows: []githubsim.Workflow{{File: "fullsend-run.yml"}}}}})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.SetPermission("acme/platform", "alice", "maintain"); err != nil {
		t.Fatal(err)
	}
	n, _, err := s.OpenIssue("acme/platform", githubsim.IssueSpec{Title: "t", Author: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddComment("acme/platform", n, "alice", "/fs-triage please"); err != nil {
		t.Fatal(err)
	}
	clk.Set(time.Now()) // the comment is 10 minutes old on GitHub's clock
	config := func(repo string) string {
		dir := testfs.WriteTree(t, map[string]string{
			"config.yaml": "version: 1\n" + repo + "forge: github\nagents:\n  - name: triage\n    source: harness/triage.yaml\n" +
				"poll:\n  input_drivers:\n    - type: github-poll\n      connection:\n        base_url: " + base +
				"\n  output_driver: json\n",
			"harness/triage.yaml": "role: triage\ntrigger: >-\n  event.transition.kind == \"comment_added\" &&\n  event.transition.comment.command == \"/fs-triage\"\nrun:\n  command: [\"true\"]\n",
		})
		return dir
	}
	env := map[string]string{"GITHUB_TOKEN": "ghs_s3cret"}
	code, out, errs := runCLI(t, "", env, "--config-dir", config("repo: acme/platform\n"), "--log-format", "json", "poll")
	var entries []map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &entries) != nil || len(entries) != 1 {
		t.Fatalf("poll: %d %q %s", code, out, errs)
	}
	if !strings.Contains(entries[0]["normalized_event"], "please") || !strings.Contains(errs, `"driver":"github-poll"`) {
		t.Errorf("plan entry %v, log %s", entries[0], errs)
	}
	if strings.Contains(out+errs, "ghs_s3cret") {
		t.Error("the token was printed")
	}
	code, _, errs = runCLI(t, "", env, "--config-dir", config(""), "poll")
	if code != 2 || !strings.Contains(errs, "set `repo` in config.yaml or $GITHUB_REPOSITORY") {
		t.Fatalf("poll without a repo: exit %d, %s", code, errs)
	}
}
