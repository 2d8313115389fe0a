package dispatch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestGitLabNoteAcknowledgedOnce: a `/fs-review` note through
// gitlab-event starts its pipeline and gets one eyes award emoji by the
// token's user; the same webhook again adds none.
func TestGitLabNoteAcknowledgedOnce(t *testing.T) {
	w := newGitLabWorld(t)
	bot := w.sim.AddUser("project_1_bot_fullsend", true)
	w.sim.SetTokenUser(bot.ID)
	note, hook, err := w.sim.AddNote("acme/platform", gitlabsim.NoteableMergeRequest, w.mrIID, w.alice.ID, "/fs-review please")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ awards, lists, user int }{{1, 0, 0}, {2, 1, 1}} {
		if _, err := w.dispatch(t, hook, "gitlab-pipeline"); err != nil {
			t.Fatalf("dispatch %d: %v", i, err)
		}
		as := w.sim.Awards("Note", note.ID)
		if len(as) != 1 || as[0].Name != feedback.Eyes || as[0].UserID != bot.ID {
			t.Fatalf("after dispatch %d: awards %+v, want one eyes by the token's user", i, as)
		}
		// The calls feedback adds: one award per dispatch; a repeat's 404 is
		// settled by the award list and the token's user.
		got := struct{ awards, lists, user int }{w.sim.Calls("award_merge_request_note_emoji"),
			w.sim.Calls("list_merge_request_note_emoji"), w.sim.Calls("current_user")}
		if got != want {
			t.Errorf("after dispatch %d: calls %+v, want %+v", i, got, want)
		}
	}
	if n := len(w.sim.Pipelines("acme/platform")); n < 1 {
		t.Fatalf("%d pipelines", n)
	}
}

// TestGitLabDeniedNoteNoFeedbackByDefault: an outsider's command gets
// nothing by default, and the neutral reaction with report.denied:
// reaction.
func TestGitLabDeniedNote(t *testing.T) {
	w := newGitLabWorld(t)
	note, hook, err := w.sim.AddNote("acme/platform", gitlabsim.NoteableMergeRequest, w.mrIID, w.outsider.ID, "/fs-review")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.dispatch(t, hook, "gitlab-pipeline"); err != nil {
		t.Fatal(err)
	}
	if as := w.sim.Awards("Note", note.ID); len(as) != 0 {
		t.Fatalf("awards %+v on a denied note by default, want none", as)
	}
	harness := "role: review\nreport: {denied: reaction}\ntrigger: event.transition.kind == \"comment_added\"\nrun:\n  command: [\"true\"]\n"
	if err := os.WriteFile(filepath.Join(w.dir, "review.yaml"), []byte(harness), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := w.dispatch(t, hook, "gitlab-pipeline"); err != nil {
		t.Fatal(err)
	}
	if as := w.sim.Awards("Note", note.ID); len(as) != 1 || as[0].Name != feedback.Confused {
		t.Fatalf("awards %+v, want one confused", as)
	}
	if n := len(w.sim.Pipelines("acme/platform")); n != 0 {
		t.Fatalf("%d pipelines for a denied note", n)
	}
}

// TestReactionFailureNeverFailsDispatch: the reactions endpoint answering
// 500 leaves the dispatch successful; the failure is counted in
// fullsend_feedback_total{platform="github",kind="acknowledge",result="failed"}.
func TestReactionFailureNeverFailsDispatch(t *testing.T) {
	s := githubsim.New(githubsim.Options{Token: "tok", Repos: []githubsim.Repo{{FullName: "acme/platform",
		Workflows: []githubsim.Workflow{{File: "fullsend-run.yml"}}}}})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.SetPermission("acme/platform", "alice", "write"); err != nil {
		t.Fatal(err)
	}
	n, _, _ := s.OpenIssue("acme/platform", githubsim.IssueSpec{Title: "t", Author: "alice"})
	id, d, err := s.AddComment("acme/platform", n, "alice", "/fs-triage")
	if err != nil {
		t.Fatal(err)
	}
	s.Inject(githubsim.Fault{Endpoint: githubsim.EndpointAddCommentReaction, Status: 500, Times: 10})
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml":  "version: 1\nrepo: acme/platform\nagents:\n  - name: triage\n    source: triage.yaml\noutputs:\n  gha-dispatch:\n    workflow: fullsend-run.yml\n    ref: main\n",
		"triage.yaml":  "role: triage\ntrigger: event.transition.comment.command == \"/fs-triage\"\nrun:\n  command: [\"true\"]\n",
		"payload.json": string(d.Payload),
	})
	env := map[string]string{"GITHUB_TOKEN": "tok", "GITHUB_API_URL": base}
	reg := prometheus.NewRegistry()
	var stderr bytes.Buffer
	err = Run(context.Background(), Options{ConfigDir: dir, InputDriver: "gha-event", EventName: d.Event,
		InputFile: filepath.Join(dir, "payload.json"), OutputDriver: "gha-dispatch", Stdin: strings.NewReader(""),
		Output: output.Env{Getenv: func(k string) string { return env[k] }, Stdout: &bytes.Buffer{}, Stderr: &stderr, Metrics: reg}})
	if err != nil {
		t.Fatalf("dispatch failed because of the reaction: %v", err)
	}
	if runs := s.Runs(); len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	if rs := s.CommentReactions("acme/platform", id); len(rs) != 0 {
		t.Errorf("reactions %+v", rs)
	}
	want := `
# HELP fullsend_feedback_total Feedback written on work items (acknowledge, refuse, unhonoured) by platform and result (created, existing, failed).
# TYPE fullsend_feedback_total counter
fullsend_feedback_total{kind="acknowledge",platform="github",result="failed"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "fullsend_feedback_total"); err != nil {
		t.Error(err)
	}
	if got := s.Calls(githubsim.EndpointAddCommentReaction); got != 2 {
		t.Errorf("%d reaction requests, want 2 (one retry)", got)
	}
}
