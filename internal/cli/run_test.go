package cli

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

func TestRunCommandHoldsAndReleasesLock(t *testing.T) {
	envFile := filepath.Join(t.TempDir(), "env")
	f := newRunFixture(t, "env="+envFile, "sleep=200ms", "exit=5")
	code, stderr := f.run(t, "run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"), "--poll-lock", f.pollLock())
	if code != 5 {
		t.Fatalf("exit %d, want the agent's 5\n%s", code, stderr)
	}
	if !strings.Contains(stderr, `agent "triage" exited with code 5`) {
		t.Fatalf("stderr lacks the agent's code:\n%s", stderr)
	}
	if _, ok := f.sim.Property(f.issue, f.prop); ok {
		t.Fatal("lock not deleted at teardown")
	}
	got, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(got)), "\n") {
		if strings.HasPrefix(l, "FULLSEND_EVENT_FILE=/") {
			l = "FULLSEND_EVENT_FILE=<file>"
		}
		lines = append(lines, l)
	}
	want := []string{"FULLSEND_EVENT_FILE=<file>", "FULLSEND_HARNESS=triage",
		"FULLSEND_POLL_LOCK_DRIVER=jira-poll", "FULLSEND_POLL_LOCK_ID=lock-1",
		"FULLSEND_POLL_LOCK_PROPERTY=" + f.issue + "/" + f.prop, runAgentEnv + "=1",
		"FULLSEND_SERIALIZATION_KEY=triage:acme/platform:jira:work_item:10042",
		"FULLSEND_WORK_ITEM_KEY=PROJ-1", "FULLSEND_WORK_ITEM_SOURCE=jira",
		"FULLSEND_WORK_ITEM_URL=https://acme.atlassian.net/browse/PROJ-1",
		"HOME=/home/ci", "ISSUE_NUMBER=", "MODEL_KEY=mk", "PATH=/usr/bin:/bin"}
	sort.Strings(want)
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("agent env:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestRunCommandSkewedHostProceeds: a runner whose clock is 20 minutes
// off Jira's (over the 15-minute stale threshold) judges the lock the
// poller wrote on Jira's clock by Jira's clock, read from the answers: the
// agent runs and the lock is released.
func TestRunCommandSkewedHostProceeds(t *testing.T) {
	for _, skew := range []time.Duration{20 * time.Minute, -20 * time.Minute, time.Hour, -time.Hour} {
		t.Run(skew.String(), func(t *testing.T) {
			ran := filepath.Join(t.TempDir(), "ran")
			f := newSkewedRunFixture(t, skew, "touch="+ran, "exit=0")
			code, stderr := f.run(t, "run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"), "--poll-lock", f.pollLock())
			if code != 0 {
				t.Fatalf("exit %d, want 0\n%s", code, stderr)
			}
			if _, err := os.Stat(ran); err != nil {
				t.Fatalf("the agent did not run: %v\n%s", err, stderr)
			}
			if _, ok := f.sim.Property(f.issue, f.prop); ok {
				t.Fatal("lock not deleted at teardown")
			}
		})
	}
}

func TestRunCommandFromEnvironment(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	f := newRunFixture(t, "touch="+ran)
	f.env["FULLSEND_AGENT"] = "triage"
	f.env["FULLSEND_EVENT"] = base64.StdEncoding.EncodeToString([]byte(runEventJSON))
	f.env["FULLSEND_POLL_LOCK_ID"] = f.lockID
	f.env["FULLSEND_POLL_LOCK_DRIVER"] = "jira-poll"
	f.env["FULLSEND_POLL_LOCK_PROPERTY"] = f.issue + "/" + f.prop
	if code, stderr := f.run(t, "run"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatal("agent did not run")
	}
	if _, ok := f.sim.Property(f.issue, f.prop); ok {
		t.Fatal("lock not deleted")
	}
}

func TestRunCommandRefreshOnly(t *testing.T) {
	f := newRunFixture(t)
	f.env[plan.EnvVar(plan.InPollLock)] = f.pollLock()
	if code, stderr := f.run(t, "run", "--refresh-only"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	raw, ok := f.sim.Property(f.issue, f.prop)
	l, err := polllock.Parse(raw)
	if !ok || err != nil || l.Phase != polllock.PhaseRunning || len(l.Runs) != 1 ||
		l.Runs[0] != (plan.Ref{Driver: "gha-dispatch", ID: "77", URL: "https://github.com/acme/platform/actions/runs/77"}) {
		t.Fatalf("lock after --refresh-only: %s (%v)", raw, err)
	}
	delete(f.env, plan.EnvVar(plan.InPollLock))
	if code, stderr := f.run(t, "run", "--refresh-only"); code != 0 || !strings.Contains(stderr, "nothing to refresh") {
		t.Fatalf("without a lock: exit %d\n%s", code, stderr)
	}
}

func TestRunCommandLostLockExits3(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	f := newRunFixture(t, "touch="+ran)
	other := polllock.Lock{ID: "poller-b", TS: time.Now(), Phase: polllock.PhasePending}.Marshal()
	f.sim.SetPropertyDirect(f.issue, f.prop, other)
	for _, args := range [][]string{
		{"run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"), "--poll-lock", f.pollLock()},
		{"run", "--refresh-only", "--poll-lock", f.pollLock()},
	} {
		code, stderr := f.run(t, args...)
		if code != ExitLostLock || !strings.Contains(stderr, `held by lock id "poller-b"`) {
			t.Fatalf("%v: exit %d, want 3\n%s", args, code, stderr)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("agent ran without the lock")
	}
	if raw, _ := f.sim.Property(f.issue, f.prop); string(raw) != string(other) {
		t.Fatalf("other poller's lock changed: %s", raw)
	}
}

func TestRunCommandBadInputExits2(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	f := newRunFixture(t, "touch="+ran)
	ev := filepath.Join(f.dir, "event.json")
	f.write(t, "invalid.json", strings.Replace(runEventJSON, `"write"`, `"boss"`, 1))
	corrupt := "PROJ-1/fullsend.poll.acme.platform.corrupt"
	f.sim.SetPropertyDirect(f.issue, "fullsend.poll.acme.platform.corrupt", []byte(`{"id":"lock-1","phase":"later"}`))
	lock := f.pollLock()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing harness", []string{"run", "--event-file", ev, "--poll-lock", lock}, "no harness"},
		{"unknown harness", []string{"run", "--harness", "nope", "--event-file", ev, "--poll-lock", lock}, `harness "nope" is not registered`},
		{"disabled harness", []string{"run", "--harness", "off", "--event-file", ev, "--poll-lock", lock}, `harness "off" is disabled`},
		{"harness without command", []string{"run", "--harness", "nocmd", "--event-file", ev, "--poll-lock", lock}, "has no run.command"},
		{"unreadable event", []string{"run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "missing.json"), "--poll-lock", lock}, "missing.json"},
		{"invalid event", []string{"run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "invalid.json"), "--poll-lock", lock}, "/actor/role"},
		{"corrupt lock property", []string{"run", "--harness", "triage", "--event-file", ev, "--poll-lock",
			`{"id":"lock-1","driver":"jira-poll","property":"` + corrupt + `"}`}, "is corrupt"},
		{"malformed poll lock", []string{"run", "--harness", "triage", "--event-file", ev, "--poll-lock", `{"id":"x"`}, "--poll-lock"},
		{"other lock driver", []string{"run", "--harness", "triage", "--event-file", ev, "--poll-lock", `{"id":"x","driver":"gh-poll","property":"PROJ-1/p"}`}, `driver "gh-poll" is not supported`},
		{"stray argument", []string{"run", "--harness", "triage", "--event-file", ev, "extra"}, "put the agent command after --"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := f.sim.Property(f.issue, f.prop)
			code, stderr := f.run(t, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want 2 with %q\n%s", code, tc.want, stderr)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Fatal("agent started")
			}
			if after, _ := f.sim.Property(f.issue, f.prop); string(after) != string(before) {
				t.Fatalf("lock changed: %s -> %s", before, after)
			}
		})
	}
}

func TestRunCommandAfterDashOverridesHarness(t *testing.T) {
	dir := t.TempDir()
	ran, other := filepath.Join(dir, "harness-ran"), filepath.Join(dir, "dash-ran")
	f := newRunFixture(t, "touch="+ran)
	exe, _ := os.Executable()
	code, stderr := f.run(t, "run", "--harness", "nocmd", "--event-file", filepath.Join(f.dir, "event.json"), "--poll-lock", "",
		"--", exe, "-test.run=^TestRunHelperAgent$", "--", "touch="+other, "exit=0")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatal("the command after -- did not run")
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("harness command ran instead of the one after --")
	}
	if _, ok := f.sim.Property(f.issue, f.prop); !ok {
		t.Fatal("--poll-lock \"\" must leave the lock alone")
	}
}

func TestRunCommandForwardsSignalAndReleasesLock(t *testing.T) {
	started := filepath.Join(t.TempDir(), "started")
	if err := syscall.Mkfifo(started, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newRunFixture(t, "signal="+started, "block")
	sigs := make(chan os.Signal, 1)
	stopped := make(chan struct{})
	saved := runSignals
	runSignals = func() (<-chan os.Signal, func()) { return sigs, func() { close(stopped) } }
	t.Cleanup(func() { runSignals = saved })
	go func() {
		// Opening the pipe for reading waits until the agent opens it
		// for writing: the agent is running.
		if r, err := os.Open(started); err == nil {
			_, _ = r.Read(make([]byte, 1))
			r.Close()
		}
		sigs <- syscall.SIGTERM
	}()
	t.Cleanup(func() {
		// Unblock the reader if the agent never started (open fails
		// with ENXIO when no reader waits).
		if w, err := os.OpenFile(started, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	code, stderr := f.run(t, "run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"), "--poll-lock", f.pollLock())
	if code != 128+int(syscall.SIGTERM) || !strings.Contains(stderr, "forwarding signal to agent") {
		t.Fatalf("exit %d, want %d\n%s", code, 128+int(syscall.SIGTERM), stderr)
	}
	select {
	case <-stopped:
	default:
		t.Fatal("signal delivery not stopped after the run")
	}
	if _, ok := f.sim.Property(f.issue, f.prop); ok {
		t.Fatal("lock not deleted after the signal")
	}
}

func TestRunSupersededGitLabPipelineReleasesItsLock(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	f := newRunFixture(t, "touch="+ran)
	gl, base := startGitLabSim(t)
	vars := map[string]string{"FULLSEND_RESOURCE_KEY": "k"}
	older, _ := gl.CreatePipeline("acme/platform", "main", vars)
	if _, err := gl.CreatePipeline("acme/platform", "main", vars); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"GITLAB_API_URL": base, "GITLAB_TOKEN": gl.Token(), "CI_PROJECT_ID": "1",
		"CI_COMMIT_REF_NAME": "main", "CI_PIPELINE_ID": strconv.FormatInt(older.ID, 10), "FULLSEND_RESOURCE_KEY": "k"} {
		f.env[k] = v
	}
	code, stderr := f.run(t, "run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"), "--poll-lock", f.pollLock())
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("superseded run started the agent")
	}
	if _, ok := f.sim.Property(f.issue, f.prop); ok {
		t.Fatalf("superseded run left its poll lock behind\n%s", stderr)
	}
}
