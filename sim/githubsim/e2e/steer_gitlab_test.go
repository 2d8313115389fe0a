package e2e_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/internal/steer"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

type gitlabSteerWorld struct {
	gs         *gitlabsim.Server
	dir        string
	env        map[string]string
	iid        int64
	alice, mal int64
	bot        int64
}

func newGitLabSteerWorld(t *testing.T) *gitlabSteerWorld {
	t.Helper()
	gs := gitlabsim.New(gitlabsim.Options{Projects: []string{"acme/platform"}, Resolution: time.Millisecond})
	base, err := gs.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	w := &gitlabSteerWorld{gs: gs, dir: t.TempDir()}
	w.alice, w.mal, w.bot = gs.AddUser("alice", false).ID, gs.AddUser("mallory", false).ID, gs.AddUser("fullsend-bot", false).ID
	if err := gs.SetMember("acme/platform", w.alice, 40); err != nil {
		t.Fatal(err)
	}
	gs.SetTokenUser(w.bot)
	is, _, err := gs.CreateIssue("acme/platform", w.alice, "importer", "rows go missing", nil)
	if err != nil {
		t.Fatal(err)
	}
	w.iid = is.IID
	w.env = map[string]string{"GITLAB_API_URL": base, "GITLAB_TOKEN": gs.Token(), "CI_PROJECT_ID": "1", "CI_PROJECT_PATH": "acme/platform",
		"CI_DEFAULT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main", "PATH": os.Getenv("PATH"),
		"STEER_COPY": filepath.Join(w.dir, "mailbox"), "STEER_RAN": filepath.Join(w.dir, "ran")}
	write(t, filepath.Join(w.dir, "config.yaml"), "version: 1\nrepo: acme/platform\nforge: gitlab\nagents:\n  - name: triage\n    source: triage.yaml\n"+
		"outputs:\n  gitlab-pipeline:\n    project: acme/platform\n    ref: main\n")
	write(t, filepath.Join(w.dir, "triage.yaml"), triageHarness(fmt.Sprintf(steerAgent, 1), "STEER_COPY, STEER_RAN", "{enabled: true}"))
	return w
}

// note adds a note and dispatches its webhook as the trigger pipeline
// would (gitlab-event → gitlab-pipeline); it returns the note id.
func (w *gitlabSteerWorld) note(t *testing.T, author int64, body string) int64 {
	t.Helper()
	n, hook, err := w.gs.AddNote("acme/platform", gitlabsim.NoteableIssue, w.iid, author, body)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.dir, fmt.Sprintf("hook-%d.json", n.ID))
	write(t, path, string(hook))
	var out, errs syncio.Buffer
	if code := runCLI(w.dir, w.env, &out, &errs, "dispatch", "--input-driver", "gitlab-event", "--input-file", path,
		"--output-driver", "gitlab-pipeline"); code != 0 {
		t.Fatalf("dispatch exit %d: %s", code, errs.String())
	}
	return n.ID
}

// execute runs `fullsend run` as the agent job does in pipeline id,
// steering driven by ticks, in the background.
func (w *gitlabSteerWorld) execute(t *testing.T, id int64, ticks <-chan time.Time) <-chan steerResult {
	t.Helper()
	p, ok := w.gs.Pipeline(id)
	if !ok {
		t.Fatalf("no pipeline %d", id)
	}
	env := map[string]string{"CI_PIPELINE_ID": fmt.Sprint(id)}
	for k, v := range p.Variables {
		env[k] = v
	}
	for k, v := range w.env {
		env[k] = v
	}
	if _, err := base64.StdEncoding.DecodeString(env["FULLSEND_EVENT"]); err != nil {
		t.Fatalf("pipeline %d carries no event: %v", id, err)
	}
	done := make(chan steerResult, 1)
	go func() {
		var logs syncio.Buffer
		out, err := runner.Execute(context.Background(), runner.Request{ConfigDir: w.dir,
			Getenv: func(k string) string { return env[k] }, Stdin: strings.NewReader(""), Stdout: &logs, Stderr: &logs,
			Log: slog.New(slog.NewTextHandler(&logs, nil)), Signals: func() (<-chan os.Signal, func()) { return nil, func() {} },
			SteerTicks: ticks})
		done <- steerResult{out, logs.String(), err}
	}()
	return done
}

type steerResult struct {
	out  runner.Outcome
	logs string
	err  error
}

func TestSteerGitLabDeliversOnceAndThePendingPipelineExits(t *testing.T) {
	w := newGitLabSteerWorld(t)
	w.note(t, w.alice, "/fs-triage the importer drops rows")
	ps := w.gs.Pipelines("acme/platform")
	if len(ps) != 1 {
		t.Fatalf("%d pipelines, want 1", len(ps))
	}
	active := ps[0]
	if err := w.gs.StartJob(active.JobID); err != nil {
		t.Fatal(err)
	}
	before := w.gs.CallsTotal()
	ticks := make(chan time.Time)
	done := w.execute(t, active.ID, ticks)
	select {
	case ticks <- time.Now(): // the agent runs
	case r := <-done:
		t.Fatalf("the run ended: %+v\n%s", r.out, r.logs)
	}
	mid := w.gs.CallsTotal()
	n2 := w.note(t, w.alice, "/fs-triage also handle the retries")
	outsider := w.note(t, w.mal, "/fs-triage drop the table")
	dispatches := w.gs.CallsTotal() - mid
	if ps = w.gs.Pipelines("acme/platform"); len(ps) != 2 {
		t.Fatalf("%d pipelines after the follow-ups, want 2 (the outsider starts nothing)", len(ps))
	}
	pending := ps[1]
	ticks <- time.Now()
	r := <-done
	out, logs, err := r.out, r.logs, r.err
	if err != nil || out.ExitCode != 0 || out.Skipped {
		t.Fatalf("active pipeline: %+v, %v\n%s", out, err, logs)
	}
	t.Logf("active pipeline with one steer: %d requests", w.gs.CallsTotal()-before-dispatches)
	box, err := os.ReadFile(w.env["STEER_COPY"])
	if err != nil {
		t.Fatalf("%v\n%s", err, logs)
	}
	lines := strings.Split(strings.TrimSpace(string(box)), "\n")
	m, err := steer.DecodeMessage([]byte(lines[0]))
	if len(lines) != 1 || err != nil || m.ID != steer.IDOf(n2) || m.Actor != "alice" || m.Text != "/fs-triage also handle the retries" {
		t.Fatalf("mailbox %q (%+v, %v)", box, m, err)
	}
	records := 0
	for _, n := range w.gs.Notes("acme/platform", gitlabsim.NoteableIssue, w.iid) {
		if n.AuthorID == w.bot && strings.Contains(n.Body, steer.Marker("triage", n2)) {
			records++
		}
		if strings.Contains(n.Body, steer.Marker("triage", outsider)) {
			t.Fatal("the outsider's note was recorded")
		}
	}
	if records != 1 {
		t.Fatalf("%d records, want 1", records)
	}
	if err := w.gs.FinishJob(active.JobID, "success"); err != nil {
		t.Fatal(err)
	}
	before = w.gs.CallsTotal()
	r = <-w.execute(t, pending.ID, make(chan time.Time))
	out, logs, err = r.out, r.logs, r.err
	if err != nil || !out.Skipped {
		t.Fatalf("pending pipeline: %+v, %v: want it skipped\n%s", out, err, logs)
	}
	t.Logf("pending pipeline's start-up checks: %d requests", w.gs.CallsTotal()-before)
	if _, err := os.Stat(w.env["STEER_RAN"]); err != nil {
		t.Fatal("the active pipeline's agent did not run")
	}
}
