package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestPollGitLab: `fullsend poll` with a gitlab-poll input plans the run
// of a note older than the grace period, and never prints the token.
func TestPollGitLab(t *testing.T) {
	clk := fakeclock.New(time.Now().Add(-10 * time.Minute))
	s := gitlabsim.New(gitlabsim.Options{Token: "gl-s3cret", Now: clk.Now})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	alice, bot := s.AddUser("alice", false), s.AddUser("project_1_bot_ab12", true)
	s.SetTokenUser(bot.ID)
	if err := s.SetMember("acme/platform", alice.ID, gitlabsim.AccessMaintainer); err != nil {
		t.Fatal(err)
	}
	m, _, err := s.CreateMergeRequest("acme/platform", gitlabsim.MergeRequestSpec{SourceBranch: "fix", TargetBranch: "main", Title: "Fix", AuthorID: alice.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddNote("acme/platform", gitlabsim.NoteableMergeRequest, m.IID, alice.ID, "/fs-triage please"); err != nil {
		t.Fatal(err)
	}
	clk.Set(time.Now()) // the note is 10 minutes old on GitLab's clock
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nforge: gitlab\nagents:\n  - name: triage\n    source: harness/triage.yaml\n" +
			"poll:\n  input_drivers:\n    - type: gitlab-poll\n      connection:\n        base_url: " + base +
			"\n      lock:\n        jitter_min: 1ms\n        jitter_max: 2ms\n  output_driver: json\n",
		"harness/triage.yaml": "role: triage\ntrigger: >-\n  event.transition.kind == \"comment_added\" &&\n  event.transition.comment.command == \"/fs-triage\"\nrun:\n  command: [\"true\"]\n",
	})
	code, out, errs := runCLI(t, "", map[string]string{"GITLAB_TOKEN": "gl-s3cret"}, "--config-dir", dir, "--log-format", "json", "poll")
	var entries []map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &entries) != nil || len(entries) != 1 {
		t.Fatalf("poll: %d %q %s", code, out, errs)
	}
	if !strings.Contains(entries[0]["normalized_event"], "please") || !strings.Contains(errs, `"driver":"gitlab-poll"`) {
		t.Errorf("plan entry %v, log %s", entries[0], errs)
	}
	if strings.Contains(out+errs, "gl-s3cret") {
		t.Error("the token was printed")
	}
}
