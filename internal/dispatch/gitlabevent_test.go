package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// gitlabWorld is a GitLab emulator with one project, a maintainer and an
// outsider, and a config dir whose review harness answers `/fs-review`
// notes on merge requests.
type gitlabWorld struct {
	sim             *gitlabsim.Server
	base, dir       string
	alice, outsider gitlabsim.User
	mrIID           int64
}

func newGitLabWorld(t *testing.T) *gitlabWorld {
	t.Helper()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := gitlabsim.New(gitlabsim.Options{Projects: []string{"acme/platform"}, Now: func() time.Time { return now }})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	w := &gitlabWorld{sim: s, base: base, dir: t.TempDir()}
	w.alice, w.outsider = s.AddUser("alice", false), s.AddUser("eve", false)
	if err := s.SetMember("acme/platform", w.alice.ID, gitlabsim.AccessMaintainer); err != nil {
		t.Fatal(err)
	}
	mr, _, err := s.CreateMergeRequest("acme/platform", gitlabsim.MergeRequestSpec{SourceBranch: "fix", TargetBranch: "main", Title: "Fix", AuthorID: w.alice.ID})
	if err != nil {
		t.Fatal(err)
	}
	w.mrIID = mr.IID
	files := map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nforge: gitlab\nagents:\n  - name: review\n    source: review.yaml\noutputs:\n  gitlab-pipeline:\n    ref: main\n",
		"review.yaml": "role: review\ntrigger: event.transition.kind == \"comment_added\" && event.transition.comment.command == \"/fs-review\"\nrun:\n  command: [\"true\"]\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(w.dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// dispatch runs `fullsend dispatch --input-driver gitlab-event` on the
// webhook body as GitLab's trigger pipeline hands it over (TRIGGER_PAYLOAD
// names a file).
func (w *gitlabWorld) dispatch(t *testing.T, body []byte, out string) (string, error) {
	t.Helper()
	payload := filepath.Join(t.TempDir(), "TRIGGER_PAYLOAD")
	if err := os.WriteFile(payload, body, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"TRIGGER_PAYLOAD": payload, "CI_PIPELINE_SOURCE": "trigger", "CI_API_V4_URL": w.base + "/api/v4",
		"GITLAB_TOKEN": w.sim.Token(), "CI_PROJECT_PATH": "acme/platform",
	}
	var stdout bytes.Buffer
	err := Run(context.Background(), Options{ConfigDir: w.dir, OutputDriver: out, Stdin: strings.NewReader(""),
		Output: output.Env{Getenv: func(k string) string { return env[k] }, Stdout: &stdout}})
	return stdout.String(), err
}

func TestGitLabEventNoteStartsAgentPipeline(t *testing.T) {
	w := newGitLabWorld(t)
	_, hook, err := w.sim.AddNote("acme/platform", gitlabsim.NoteableMergeRequest, w.mrIID, w.alice.ID, "/fs-review please")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.dispatch(t, hook, "gitlab-pipeline"); err != nil {
		t.Fatal(err)
	}
	ps := w.sim.Pipelines("acme/platform")
	if len(ps) != 1 {
		t.Fatalf("%d pipelines, want 1", len(ps))
	}
	if got, want := ps[0].Variables["FULLSEND_SERIALIZATION_KEY"], "review:acme/platform:gitlab:change_proposal:1"; got != want {
		t.Errorf("serialization key %q, want %q", got, want)
	}
	if ps[0].Variables["FULLSEND_AGENT"] != "review" {
		t.Errorf("agent %q, want review", ps[0].Variables["FULLSEND_AGENT"])
	}
}

func TestGitLabEventRefusesForgedAndOutsiders(t *testing.T) {
	w := newGitLabWorld(t)
	_, hook, err := w.sim.AddNote("acme/platform", gitlabsim.NoteableMergeRequest, w.mrIID, w.outsider.ID, "/fs-review")
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.dispatch(t, hook, "json")
	if err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("outsider's note: plan %q, err %v; want [] (denied)", out, err)
	}
	// The forger claims alice wrote the note: the body says so, the API does not.
	var doc map[string]any
	if err := json.Unmarshal(hook, &doc); err != nil {
		t.Fatal(err)
	}
	doc["object_attributes"].(map[string]any)["author_id"] = w.alice.ID
	doc["user"] = map[string]any{"id": w.alice.ID, "username": w.alice.Username, "name": w.alice.Username}
	forged, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.dispatch(t, forged, "gitlab-pipeline"); !config.IsInvalid(err) {
		t.Fatalf("forged payload: err = %v, want the user's error (exit 2)", err)
	}
	if n := len(w.sim.Pipelines("acme/platform")); n != 0 {
		t.Fatalf("%d pipelines started, want 0", n)
	}
}
