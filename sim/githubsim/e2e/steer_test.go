package e2e_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cli"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/internal/steer"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/internal/workflows/ghactions"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

const (
	steerToken = "ghp_steerE2eSecret" // a token whose /user answers (the tool's own login)
	steerRepo  = "acme/platform"
)

// steerAgent is the test agent: it waits (bounded) until its mailbox
// holds want lines, copies it to $STEER_COPY, acknowledges every id it
// read, and exits 0; with want 0 it only touches $STEER_RAN.
const steerAgent = `touch "$STEER_RAN"
want=%d
i=0
while [ "$(grep -c . "$FULLSEND_STEER_FILE")" -lt "$want" ]; do
  i=$((i+1)); [ $i -gt 2000 ] && exit 7
  sleep 0.01
done
cp "$FULLSEND_STEER_FILE" "$STEER_COPY"
sed -n 's/^{"id":"\(comment-[0-9]*\)".*/\1/p' "$FULLSEND_STEER_FILE" >> "$FULLSEND_STEER_ACK_FILE"
`

type steerWorld struct {
	gs    *githubsim.Server
	dir   string
	env   map[string]string
	issue int
}

func newSteerWorld(t *testing.T, want int, steerKey string) *steerWorld {
	t.Helper()
	wf := githubsim.Workflow{File: "fullsend-run.yml", Inputs: plan.Names, Required: plan.Always,
		Concurrency: func(in map[string]string) string { return ghactions.CallerPrefix + in[plan.InSerializationKey] }}
	gs := githubsim.New(githubsim.Options{Token: steerToken, Login: "fullsend-bot",
		Repos: []githubsim.Repo{{FullName: steerRepo, DefaultBranch: "main", Workflows: []githubsim.Workflow{wf}}}})
	base, err := gs.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	for login, role := range map[string]string{"alice": "maintain", "mallory": "read"} {
		if err := gs.SetPermission(steerRepo, login, role); err != nil {
			t.Fatal(err)
		}
	}
	n, _, err := gs.OpenIssue(steerRepo, githubsim.IssueSpec{Title: "importer", Author: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	w := &steerWorld{gs: gs, dir: t.TempDir(), issue: n}
	w.env = map[string]string{"GITHUB_TOKEN": steerToken, "GITHUB_API_URL": base, "GITHUB_REPOSITORY": steerRepo,
		"PATH": os.Getenv("PATH"), "STEER_COPY": filepath.Join(w.dir, "mailbox"), "STEER_RAN": filepath.Join(w.dir, "ran")}
	script := fmt.Sprintf(steerAgent, want)
	write(t, filepath.Join(w.dir, "config.yaml"), "version: 1\nrepo: "+steerRepo+"\nagents:\n  - name: triage\n    source: triage.yaml\n"+
		"outputs:\n  gha-dispatch:\n    workflow: fullsend-run.yml\n    ref: main\n")
	write(t, filepath.Join(w.dir, "triage.yaml"), triageHarness(script, "STEER_COPY, STEER_RAN", steerKey))
	return w
}

// triageHarness is the steering tests' harness: /fs-triage comments, the
// agent script, the variables it is handed (env) and its steer: key.
func triageHarness(script, env, steerKey string) string {
	return fmt.Sprintf(`role: triage
trigger: event.transition.kind == "comment_added" && event.transition.comment.command == "/fs-triage"
run:
  command: ["sh", "-c", %q]
  isolation: none
  env: [%s]
steer: %s
`, script, env, steerKey)
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// comment posts a comment and dispatches it as the event workflow would
// (gha-event → gha-dispatch); it returns the comment id.
func (w *steerWorld) comment(t *testing.T, author, body string) int64 {
	t.Helper()
	id, d, err := w.gs.AddComment(steerRepo, w.issue, author, body)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.dir, fmt.Sprintf("event-%d.json", id))
	write(t, path, string(d.Payload))
	var out, errs syncio.Buffer
	code := runCLI(w.dir, w.env, &out, &errs, "dispatch", "--input-driver", "gha-event", "--event-name", d.Event,
		"--input-file", path, "--output-driver", "gha-dispatch")
	if code != 0 {
		t.Fatalf("dispatch exit %d: %s", code, errs.String())
	}
	return id
}

// runs is the emulator's runs, oldest first.
func (w *steerWorld) runs() []githubsim.Run { return w.gs.Runs() }

// execute runs `fullsend run` as the generated workflow's step does for
// run id (its inputs, GITHUB_RUN_ID), steering driven by ticks.
func (w *steerWorld) execute(t *testing.T, id int64, ticks <-chan time.Time, kill func(string) bool) (runner.Outcome, string, error) {
	t.Helper()
	run, ok := w.gs.Run(id)
	if !ok {
		t.Fatalf("no run %d", id)
	}
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": fmt.Sprint(id),
		"FULLSEND_NORMALIZED_EVENT": run.Inputs[plan.InNormalizedEvent], "FULLSEND_AGENT": run.Inputs[plan.InAgent]}
	for k, v := range w.env {
		env[k] = v
	}
	var logs syncio.Buffer
	out, err := runner.Execute(context.Background(), runner.Request{ConfigDir: w.dir,
		Getenv: func(k string) string { return env[k] }, Stdin: strings.NewReader(""), Stdout: &logs, Stderr: &logs,
		Log: slog.New(slog.NewTextHandler(&logs, nil)), Signals: func() (<-chan os.Signal, func()) { return nil, func() {} },
		SteerTicks: ticks, SteerKill: kill, GitHubStartCheck: ghadispatch.StartCheck})
	return out, logs.String(), err
}

func (w *steerWorld) replies(t *testing.T, harness string, comment int64) int {
	t.Helper()
	n := 0
	for _, c := range w.gs.Comments(steerRepo, w.issue) {
		if c.Author == "fullsend-bot" && strings.Contains(c.Body, steer.Marker(harness, comment)) {
			n++
		}
	}
	return n
}

func TestSteerGitHubDeliversOnceAndThePendingRunExits(t *testing.T) {
	w := newSteerWorld(t, 1, "{enabled: true}")
	w.comment(t, "alice", "/fs-triage the importer drops rows")
	runs := w.runs()
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	active := runs[0].ID
	if err := w.gs.StartRun(active); err != nil {
		t.Fatal(err)
	}
	c2 := w.comment(t, "alice", "/fs-triage also handle the retries")
	outsider := w.comment(t, "mallory", "/fs-triage drop the table")
	if runs = w.runs(); len(runs) != 2 {
		t.Fatalf("%d runs after the follow-ups, want 2 (the outsider starts nothing)", len(runs))
	}
	pending := runs[1].ID

	before := w.gs.Requests()
	out, logs, err := w.execute(t, active, make(chan time.Time), nil)
	if err != nil || out.ExitCode != 0 || out.Skipped {
		t.Fatalf("active run: %+v, %v\n%s", out, err, logs)
	}
	t.Logf("active run with one steer: %d requests", w.gs.Requests()-before)
	box, err := os.ReadFile(w.env["STEER_COPY"])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(box)), "\n")
	if len(lines) != 1 {
		t.Fatalf("mailbox %q: want the one follow-up", box)
	}
	m, err := steer.DecodeMessage([]byte(lines[0]))
	if err != nil || m.ID != steer.IDOf(c2) || m.Actor != "alice" || m.Role != "maintain" || m.Text != "/fs-triage also handle the retries" ||
		!strings.Contains(m.SourceURL, fmt.Sprint(c2)) {
		t.Fatalf("message %+v, %v", m, err)
	}
	if strings.Contains(string(box), "drop the table") {
		t.Fatal("the outsider's follow-up was delivered")
	}
	if n := w.replies(t, "triage", c2); n != 1 {
		t.Fatalf("%d records of the delivery, want 1", n)
	}
	if n := w.replies(t, "triage", outsider); n != 0 {
		t.Fatal("the outsider's comment was recorded")
	}

	if err := w.gs.CompleteRun(active, "success"); err != nil {
		t.Fatal(err)
	}
	if err := w.gs.StartRun(pending); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(w.env["STEER_RAN"])
	before = w.gs.Requests()
	out, logs, err = w.execute(t, pending, make(chan time.Time), nil)
	if err != nil || !out.Skipped {
		t.Fatalf("pending run: %+v, %v: want it skipped\n%s", out, err, logs)
	}
	t.Logf("pending run's start-up check: %d requests", w.gs.Requests()-before)
	if _, err := os.Stat(w.env["STEER_RAN"]); err == nil {
		t.Fatal("the pending run started its agent")
	}
}

// runCLI runs fullsend with the config in dir and env.
func runCLI(dir string, env map[string]string, stdout, stderr *syncio.Buffer, args ...string) int {
	app := &cli.App{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr, Getenv: func(k string) string { return env[k] }}
	return cli.Run(context.Background(), app, append([]string{"--config-dir", dir, "--log-format", "json"}, args...))
}

// With less than steer.min_time_left before run.timeout (30m by default)
// nothing is taken: the follow-up stays its pending run, which runs its
// agent as without steering.
func TestSteerGitHubMinTimeLeftKeepsThePendingRun(t *testing.T) {
	w := newSteerWorld(t, 0, "{enabled: true, min_time_left: 31m}")
	w.comment(t, "alice", "/fs-triage the importer drops rows")
	active := w.runs()[0].ID
	if err := w.gs.StartRun(active); err != nil {
		t.Fatal(err)
	}
	c2 := w.comment(t, "alice", "/fs-triage also handle the retries")
	pending := w.runs()[1].ID
	if out, logs, err := w.execute(t, active, make(chan time.Time), nil); err != nil || out.ExitCode != 0 {
		t.Fatalf("active run: %+v %v\n%s", out, err, logs)
	} else if !strings.Contains(logs, "min_time_left") {
		t.Fatalf("no word of the limit:\n%s", logs)
	}
	if box, _ := os.ReadFile(w.env["STEER_COPY"]); len(box) != 0 || w.replies(t, "triage", c2) != 0 {
		t.Fatalf("a follow-up was taken with too little time left: %q", box)
	}
	if err := w.gs.CompleteRun(active, "success"); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(w.env["STEER_RAN"])
	if out, logs, err := w.execute(t, pending, make(chan time.Time), nil); err != nil || out.Skipped || out.ExitCode != 0 {
		t.Fatalf("pending run: %+v %v: want it to run\n%s", out, err, logs)
	}
	if _, err := os.Stat(w.env["STEER_RAN"]); err != nil {
		t.Fatal("the pending run did not start its agent")
	}
}
