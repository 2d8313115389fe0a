package e2e_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/local"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/steer"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestSteerKillAtEachPoint: points × platforms (see steer_kill_test.go).
func TestSteerKillAtEachPoint(t *testing.T) {
	bin := killBinary(t)
	platforms := []struct {
		name string
		run  func(t *testing.T, bin, point string, recorded bool)
	}{
		{"github-actions", killGitHub},
		{"gitlab-ci", killGitLab},
		{"jira", killJira},
		{"local", killLocal},
	}
	for _, p := range platforms {
		for _, k := range killPoints {
			t.Run(p.name+"/"+pointName(k.point), func(t *testing.T) { p.run(t, bin, k.point, k.recorded) })
		}
	}
}

// killActive runs the active run's `fullsend run` with env, posts the
// follow-up (followUp) once its agent runs, makes it discover, and
// checks that it ended as point says and left no process of its agent.
func killActive(t *testing.T, bin, configDir string, env map[string]string, point, dir string, followUp func()) (*proc, int) {
	t.Helper()
	p := startRun(t, bin, configDir, env)
	ps := started(t, dir, p.done, p.logs.String)
	followUp()
	usr1(t, ps.runner)
	code := p.wait(t)
	if code != wantExit(point) {
		t.Fatalf("the active run ended with %d, want %d\n%s", code, wantExit(point), p.logs.String())
	}
	noOrphans(t, ps)
	return p, code
}

// merged is the union of maps, later ones winning.
func merged(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// ghRunEnv is the environment the generated run workflow gives `fullsend
// run` in run id: its inputs, GITHUB_ACTIONS and GITHUB_RUN_ID.
func ghRunEnv(t *testing.T, w *steerWorld, id int64) map[string]string {
	t.Helper()
	run, ok := w.gs.Run(id)
	if !ok {
		t.Fatalf("no run %d", id)
	}
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": itoa(id)}
	for k, v := range run.Inputs {
		env[plan.EnvVar(k)] = v
	}
	return merged(w.env, env)
}

func killGitHub(t *testing.T, bin, point string, recorded bool) {
	w := newSteerWorld(t, 1, "{enabled: true}")
	write(t, filepath.Join(w.dir, "triage.yaml"), crashHarness())
	dir := crashDir(t)
	w.comment(t, "alice", firstText)
	active := w.runs()[0].ID
	if err := w.gs.StartRun(active); err != nil {
		t.Fatal(err)
	}
	var c2 int64
	p, code := killActive(t, bin, w.dir, merged(ghRunEnv(t, w, active), killEnv(point, dir)), point, dir,
		func() { c2 = w.comment(t, "alice", followUpText) })
	pending := w.runs()[1].ID
	// GitHub ends the job (its step died with the runner) and starts the
	// concurrency group's pending run.
	conclusion := "success"
	if code != 0 {
		conclusion = "failure"
	}
	if err := w.gs.CompleteRun(active, conclusion); err != nil {
		t.Fatal(err)
	}
	if err := w.gs.StartRun(pending); err != nil {
		t.Fatal(err)
	}
	q := startRun(t, bin, w.dir, merged(ghRunEnv(t, w, pending), map[string]string{"CRASH_DIR": dir}))
	if code := q.wait(t); code != 0 {
		t.Fatalf("the pending run exited %d\n%s", code, q.logs.String())
	}
	checkOutcome(t, recorded, w.replies(t, "triage", c2), dir, p.logs.String()+q.logs.String())
}

// glRunEnv is the environment of the agent job in pipeline id.
func glRunEnv(t *testing.T, w *gitlabSteerWorld, id int64) map[string]string {
	t.Helper()
	pl, ok := w.gs.Pipeline(id)
	if !ok {
		t.Fatalf("no pipeline %d", id)
	}
	return merged(pl.Variables, w.env, map[string]string{"CI_PIPELINE_ID": itoa(id)})
}

func killGitLab(t *testing.T, bin, point string, recorded bool) {
	w := newGitLabSteerWorld(t)
	write(t, filepath.Join(w.dir, "triage.yaml"), crashHarness())
	dir := crashDir(t)
	w.note(t, w.alice, firstText)
	active := w.gs.Pipelines("acme/platform")[0]
	if err := w.gs.StartJob(active.JobID); err != nil {
		t.Fatal(err)
	}
	var n2 int64
	p, code := killActive(t, bin, w.dir, merged(glRunEnv(t, w, active.ID), killEnv(point, dir)), point, dir,
		func() { n2 = w.note(t, w.alice, followUpText) })
	ps2 := w.gs.Pipelines("acme/platform")
	if len(ps2) != 2 {
		t.Fatalf("%d pipelines, want the active and the pending one", len(ps2))
	}
	// The job ends with its runner; the resource group goes to the
	// pending pipeline's job.
	status := "success"
	if code != 0 {
		status = "failed"
	}
	if err := w.gs.FinishJob(active.JobID, status); err != nil {
		t.Fatal(err)
	}
	q := startRun(t, bin, w.dir, merged(glRunEnv(t, w, ps2[1].ID), map[string]string{"CRASH_DIR": dir}))
	if code := q.wait(t); code != 0 {
		t.Fatalf("the pending pipeline exited %d\n%s", code, q.logs.String())
	}
	records := 0
	for _, n := range w.gs.Notes("acme/platform", gitlabsim.NoteableIssue, w.iid) {
		if n.AuthorID == w.bot && strings.Contains(n.Body, steer.Marker("triage", n2)) {
			records++
		}
	}
	checkOutcome(t, recorded, records, dir, p.logs.String()+q.logs.String())
}

// crashStale is lock.stale_threshold's default, the Jira world's.
const crashStale = 15 * time.Minute

// jiraRunEnv is the environment of `fullsend run` for the Jira change's
// GitHub run r.
func jiraRunEnv(w *world, inputs map[string]string, id int64) map[string]string {
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": itoa(id), "PATH": os.Getenv("PATH")}
	for k, v := range inputs {
		env[plan.EnvVar(k)] = v
	}
	return merged(w.env, env)
}

func killJira(t *testing.T, bin, point string, recorded bool) {
	w := newWorld(t)
	w.write(t, "triage.yaml", crashHarness())
	dir := crashDir(t)
	key, _, _ := w.commentAfterLastCheck(t, "Importer drops rows", firstText)
	if code, _, logs := w.run(t, "poll"); code != 0 {
		t.Fatalf("poll: %d\n%s", code, logs)
	}
	first := w.gh.Runs()
	if len(first) != 1 {
		t.Fatalf("%d runs, want 1", len(first))
	}
	var c2 string
	p, code := killActive(t, bin, w.dir, merged(jiraRunEnv(w, first[0].Inputs, first[0].ID), killEnv(point, dir)), point, dir,
		func() { c2 = w.jira.AddComment(key, alice, followUpText) })
	if code != 0 {
		// The lock the killed run held goes stale: Jira's clock moves on.
		w.clock.lag.Store(-int64(crashStale + 5*time.Second))
	}
	logs := p.logs.String()
	for range 2 { // the stale lock's removal, then the cycle that may dispatch
		code, _, l := w.run(t, "poll")
		if code != 0 {
			t.Fatalf("poll: %d\n%s", code, l)
		}
		logs += l
	}
	for _, r := range w.gh.Runs()[1:] {
		q := startRun(t, bin, w.dir, merged(jiraRunEnv(w, r.Inputs, r.ID), map[string]string{"CRASH_DIR": dir}))
		if code := q.wait(t); code != 0 {
			t.Fatalf("run %d exited %d\n%s", r.ID, code, q.logs.String())
		}
		logs += q.logs.String()
	}
	id, err := strconv.ParseInt(c2, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	records := 0
	for _, c := range w.jira.Comments(key) {
		if c.Author == "557058:fullsend-bot" && strings.Contains(c.Body, steer.Marker("triage", id)) {
			records++
		}
	}
	checkOutcome(t, recorded, records, dir, logs)
}

// planRun is the run a dispatched GitHub run stands for, as the local
// executor is handed it.
func planRun(t *testing.T, inputs map[string]string) plan.Run {
	t.Helper()
	ev, err := event.Decode([]byte(inputs[plan.InNormalizedEvent]))
	if err != nil {
		t.Fatal(err)
	}
	var wi plan.WorkItem
	if err := json.Unmarshal([]byte(inputs[plan.InWorkItem]), &wi); err != nil {
		t.Fatal(err)
	}
	return plan.Run{Harness: inputs[plan.InAgent], Role: inputs[plan.InRole], Event: ev,
		Key: scope.Key(inputs[plan.InSerializationKey]), WorkItem: wi}
}

func killLocal(t *testing.T, bin, point string, recorded bool) {
	w := newSteerWorld(t, 1, "{enabled: true}")
	write(t, filepath.Join(w.dir, "triage.yaml"), crashHarness())
	dir := crashDir(t)
	// The children get this process's environment (local.childEnv).
	for k, v := range merged(w.env, killEnv(point, dir), map[string]string{"GITHUB_ACTIONS": "", "GITHUB_RUN_ID": ""}) {
		t.Setenv(k, v)
	}
	var logs syncio.Buffer
	d, err := local.New(local.Options{MaxParallel: 2, Executable: bin, ConfigDir: w.dir, TempDir: t.TempDir(),
		Stdout: &logs, Stderr: &logs, Log: slog.New(slog.NewTextHandler(&logs, nil)), LogFormat: "json"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w.comment(t, "alice", firstText)
	if res := d.Dispatch(ctx, []plan.Run{planRun(t, w.runs()[0].Inputs)}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	ps := started(t, dir, logs.When(func(s string) bool { return strings.Contains(s, "local run failed") }), logs.String)
	c2 := w.comment(t, "alice", followUpText)
	if res := d.Dispatch(ctx, []plan.Run{planRun(t, w.runs()[1].Inputs)}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	usr1(t, ps.runner)
	// The executor starts the pending run once the active one ended, and
	// Close waits for both.
	err = d.Close(ctx)
	if (err != nil) != (point != "") {
		t.Fatalf("the executor's runs: %v (killed at %q)\n%s", err, point, logs.String())
	}
	noOrphans(t, ps)
	checkOutcome(t, recorded, w.replies(t, "triage", c2), dir, logs.String())
}
