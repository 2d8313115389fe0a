package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestFeedbackGitHubOnce: a `/fs-triage` comment dispatched through the
// events workflow's command (gha-event → gha-dispatch) gets one eyes
// reaction by the app on that comment; the same delivery again, and the
// github-poll backstop seeing the comment, leave it at one. A comment the
// webhook path dropped is dispatched by the backstop, which acknowledges
// it once too.
func TestFeedbackGitHubOnce(t *testing.T) {
	clk := fakeclock.New(time.Now().Add(-10 * time.Minute))
	s := githubsim.New(githubsim.Options{Token: "ghs_app", Login: "fullsend-app[bot]", Now: clk.Now,
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
	delivered, d, err := s.AddComment("acme/platform", n, "alice", "/fs-triage please")
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	dropped, _, err := s.AddComment("acme/platform", n, "alice", "/fs-triage again")
	if err != nil {
		t.Fatal(err)
	}
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nforge: github\nagents:\n  - name: triage\n    source: harness/triage.yaml\n" +
			"poll:\n  input_drivers:\n    - type: github-poll\n      connection:\n        base_url: " + base +
			"\n  output_driver: gha-dispatch\noutputs:\n  gha-dispatch:\n    workflow: fullsend-run.yml\n    ref: main\n",
		"harness/triage.yaml": "role: triage\ntrigger: >-\n  event.transition.kind == \"comment_added\" &&\n  event.transition.comment.command == \"/fs-triage\"\nrun:\n  command: [\"true\"]\n",
	})
	payload := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(payload, d.Payload, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_TOKEN": "ghs_app", "GITHUB_API_URL": base, "GITHUB_REPOSITORY": "acme/platform"}
	eyes := func(id int64) int {
		c := 0
		for _, r := range s.CommentReactions("acme/platform", id) {
			if r.Content == "eyes" && r.User == "fullsend-app[bot]" {
				c++
			} else {
				t.Errorf("unexpected reaction %+v", r)
			}
		}
		return c
	}
	for i := range 2 { // the delivery, then its redelivery
		code, _, errs := runCLI(t, "", env, "--config-dir", dir, "dispatch", "--input-driver", "gha-event",
			"--event-name", d.Event, "--input-file", payload, "--output-driver", "gha-dispatch")
		if code != 0 {
			t.Fatalf("dispatch %d: exit %d: %s", i, code, errs)
		}
		if got := eyes(delivered); got != 1 {
			t.Fatalf("after dispatch %d: %d eyes reactions on the comment, want 1", i, got)
		}
		if got := s.Calls(githubsim.EndpointAddCommentReaction); got != i+1 {
			t.Errorf("after dispatch %d: %d reaction requests, want %d (one write per dispatch)", i, got, i+1)
		}
	}
	clk.Set(time.Now()) // both comments are 10 minutes old: past the backstop's grace
	for i := range 2 {
		if code, _, errs := runCLI(t, "", env, "--config-dir", dir, "poll"); code != 0 {
			t.Fatalf("poll %d: exit %d: %s", i, code, errs)
		}
		if a, b := eyes(delivered), eyes(dropped); a != 1 || b != 1 {
			t.Fatalf("after poll %d: %d and %d eyes reactions, want 1 and 1", i, a, b)
		}
		// The backstop writes one reaction, for the change it dispatched;
		// the change the events path dispatched costs it nothing.
		if got := s.Calls(githubsim.EndpointAddCommentReaction); got != 3 {
			t.Errorf("after poll %d: %d reaction requests, want 3", i, got)
		}
	}
	if r := s.IssueReactions("acme/platform", n); len(r) != 0 {
		t.Errorf("reactions on the issue itself: %+v", r)
	}
}

// TestWorkflowsGrantFeedbackPermissions: the generated events job gets
// issues and pull-requests write while a harness writes feedback
// reactions (the default), and read access when every harness turns them
// off.
func TestWorkflowsGrantFeedbackPermissions(t *testing.T) {
	for _, tc := range []struct {
		name, report string
		write        bool
	}{
		{"default", "", true},
		{"acknowledge off", "report: {acknowledge: false}\n", false},
		{"denied reaction", "report: {acknowledge: false, denied: reaction}\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testfs.WriteTree(t, map[string]string{
				"config.yaml":         "version: 1\nrepo: acme/platform\nagents:\n  - name: triage\n    source: harness/triage.yaml\n",
				"harness/triage.yaml": "role: triage\ntrigger: event.transition.comment.command == \"/fs-triage\"\n" + tc.report,
			})
			dir := t.TempDir()
			code, _, errs := runCLI(t, "", nil, "--config-dir", cfg, "workflows", "generate", "--platform", "github",
				"--dir", dir, "--fullsend-version", "v1.0.0")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			b, err := os.ReadFile(filepath.Join(dir, "fullsend-events.yml"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(b), "issues: write"); got != tc.write {
				t.Errorf("issues: write granted %v, want %v", got, tc.write)
			}
		})
	}
}
