package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestPollStateDir: one-shot `fullsend poll --state-dir D` processes with
// a plan-printing output print a change once: the second process starts
// from the state the first saved (one file, no token in it); with
// --state-dir none the second prints it again.
func TestPollStateDir(t *testing.T) {
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
	clk.Set(time.Now())
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nforge: github\nagents:\n  - name: triage\n    source: harness/triage.yaml\n" +
			"poll:\n  input_drivers:\n    - type: github-poll\n      connection:\n        base_url: " + base + "\n  output_driver: json\n",
		"harness/triage.yaml": "role: triage\ntrigger: >-\n  event.transition.kind == \"comment_added\" &&\n  event.transition.comment.command == \"/fs-triage\"\nrun:\n  command: [\"true\"]\n",
	})
	env := map[string]string{"GITHUB_TOKEN": "ghs_s3cret"}
	state := filepath.Join(t.TempDir(), "state")
	printed := func(stateDir string) int {
		t.Helper()
		code, out, errs := runCLI(t, "", env, "--config-dir", dir, "poll", "--state-dir", stateDir)
		var entries []json.RawMessage
		if code != 0 || json.Unmarshal([]byte(out), &entries) != nil {
			t.Fatalf("poll: %d %q %s", code, out, errs)
		}
		return len(entries)
	}
	if got := printed(state); got != 1 {
		t.Fatalf("first process printed %d entries, want 1", got)
	}
	if got := printed(state); got != 0 {
		t.Fatalf("second process with the state printed %d entries, want 0", got)
	}
	files, err := filepath.Glob(filepath.Join(state, "github-poll-*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("state files %v, %v: want one github-poll file", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil || strings.Contains(string(b), "s3cret") {
		t.Fatalf("state file: %v, or it holds the token", err)
	}
	if got := printed("none"); got != 1 {
		t.Fatalf("a process without a state printed %d entries, want 1 (it starts cold)", got)
	}
}
