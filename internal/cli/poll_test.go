package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// pollFixture is a .fullsend/ pointing at a Jira emulator.
type pollFixture struct {
	sim *jirasim.Server
	dir string
	env map[string]string
}

func newPollFixture(t *testing.T) *pollFixture {
	t.Helper()
	s := jirasim.New(jirasim.Options{RequiredToken: "s3cret-token", Now: tickingClock(time.Now())})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.AddProject("PROJ", "")
	s.SetRole("PROJ", "Developers", "acct-dev")
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("config.yaml", `version: 1
repo: acme/platform
agents:
  - name: triage
    source: harness/triage.yaml
poll:
  input_drivers:
    - type: jira-poll
      connection:
        base_url: `+base+`
      project: PROJ
      queries:
        - project = PROJ AND statusCategory != Done
      lock:
        jitter_min: 1ms
        jitter_max: 2ms
  output_driver: json
`)
	write("harness/triage.yaml", `role: triage
trigger: >-
  event.transition.kind == "comment_added" &&
  event.transition.comment.command == "/fs-triage"
run:
  command: ["true"]
`)
	return &pollFixture{sim: s, dir: dir, env: map[string]string{"JIRA_TOKEN": "s3cret-token", "JIRA_USER_EMAIL": "bot@example.com"}}
}

func (f *pollFixture) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCLI(t, "", f.env, append([]string{"--config-dir", f.dir, "--log-format", "json"}, args...)...)
}

func TestPollCommand(t *testing.T) {
	f := newPollFixture(t)
	old := f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"})
	if code, out, errs := f.run(t, "poll", "seed"); code != 0 || !strings.Contains(out, "1 issue matched, 1 seeded") {
		t.Fatalf("seed: %d %q %s", code, out, errs)
	}
	f.sim.AddComment(old, "acct-dev", "/fs-triage please")
	f.sim.AddComment(f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"}), "acct-other", "/fs-triage")

	code, out, errs := f.run(t, "poll", "--dry-run")
	if code != 0 || strings.Count(out, `"agent":"triage"`) != 1 {
		t.Fatalf("dry run: %d %q %s", code, out, errs)
	}
	if _, ok := f.sim.Property(old, "fullsend.poll.acme.platform.lock"); ok {
		t.Fatal("dry run wrote a lock")
	}
	code, out, errs = f.run(t, "poll")
	var entries []map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &entries) != nil || len(entries) != 1 {
		t.Fatalf("poll: %d %q %s", code, out, errs)
	}
	if !strings.Contains(entries[0]["poll_lock"], old+"/fullsend.poll.acme.platform.lock") ||
		!strings.Contains(entries[0]["normalized_event"], "please") {
		t.Errorf("plan entry = %v", entries[0])
	}
	if !strings.Contains(errs, `"msg":"poll cycle"`) || !strings.Contains(errs, `"dispatches_scheduled":1`) {
		t.Errorf("no cycle record in the log: %s", errs)
	}
	if strings.Contains(out+errs, "s3cret-token") {
		t.Error("the token was printed")
	}
	raw, ok := f.sim.Property(old, "fullsend.poll.acme.platform.lock")
	if l, err := polllock.Parse(raw); !ok || err != nil || l.Phase != polllock.PhasePending { // the run claims it when it starts
		t.Fatalf("lock after poll = %s (%v)", raw, err)
	}
	checkBefore, _ := f.sim.Property(old, "fullsend.poll.acme.platform.lastCheck")

	code, out, _ = f.run(t, "poll", "cancel", "--issue", old, "--input-driver", "jira-poll")
	if code != 0 || !strings.Contains(out, "deleted; lastCheck left unchanged") {
		t.Fatalf("cancel: %d %q", code, out)
	}
	if _, ok := f.sim.Property(old, "fullsend.poll.acme.platform.lock"); ok {
		t.Error("cancel left the lock")
	}
	if checkAfter, _ := f.sim.Property(old, "fullsend.poll.acme.platform.lastCheck"); string(checkAfter) != string(checkBefore) {
		t.Errorf("cancel changed lastCheck: %s → %s", checkBefore, checkAfter)
	}
	if code, out, _ = f.run(t, "poll", "cancel", "--issue", old); code != 0 || !strings.Contains(out, "no poll lock") {
		t.Errorf("cancel without a lock: %d %q", code, out)
	}
	if code, out, _ = f.run(t, "poll"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("quiet cycle with json output: %d %q, want an empty plan", code, out)
	}
}

func TestPollCommandErrors(t *testing.T) {
	f := newPollFixture(t)
	f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	cases := []struct {
		name string
		env  map[string]string
		args []string
		code int
		msg  string
	}{
		{"unknown issue", nil, []string{"poll", "cancel", "--issue", "PROJ-999"}, 2, "does not exist"},
		{"bad issue key", nil, []string{"poll", "cancel", "--issue", "nope"}, 2, "not a Jira issue key"},
		{"missing issue flag", nil, []string{"poll", "cancel"}, 2, "--issue is required"},
		{"unknown input driver", nil, []string{"poll", "--input-driver", "rss-poll"}, 2, "want jira-poll, gitlab-poll, github-poll"},
		{"no token", map[string]string{}, []string{"poll"}, 2, "$JIRA_TOKEN is empty"},
		{"wrong token", map[string]string{"JIRA_TOKEN": "wrong"}, []string{"poll"}, 2, "refused the credentials"},
		{"bad interval", nil, []string{"poll", "--watch", "--interval", "0s"}, 2, "--interval"},
		{"interval without watch", nil, []string{"poll", "--interval", "5s"}, 2, "--interval needs --watch"},
		{"unknown output before any Jira call", map[string]string{}, []string{"poll", "--output-driver", "nope"}, 2, `--output-driver "nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := f.env
			if tc.env != nil {
				env = tc.env
			}
			code, _, errs := runCLI(t, "", env, append([]string{"--config-dir", f.dir}, tc.args...)...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.msg)
			}
			if strings.Contains(errs, "s3cret-token") || strings.Contains(errs, "Basic ") {
				t.Error("a credential was printed")
			}
		})
	}
}

// --watch repeats cycles, serves metrics, and exits 0 on a stop signal.
func TestPollWatch(t *testing.T) {
	w := startWatch(t, "--metrics-addr", "127.0.0.1:0")
	out, errb, done, cancel := &w.out, w.errb, w.done, w.cancel
	addrRe := regexp.MustCompile(`"msg":"serving metrics","addr":"([^"]+)"`)
	errb.waitFor(t, func(s string) bool { return strings.Count(s, `"msg":"poll cycle"`) >= 3 })
	m := addrRe.FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("no metrics address logged: %s", errb.String())
	}
	resp, err := http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `fullsend_poll_cycles_total{driver="jira-poll",result="ok"}`) {
		t.Errorf("metrics lack the cycle counter:\n%.600s", body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after a stop signal; stderr %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("poll --watch did not stop")
	}
	if n := strings.Count(out.String(), `"agent":"triage"`); n != 1 {
		t.Errorf("%d triage dispatches over the watch, want 1: %s", n, out.String())
	}
}

// With a plan-printing output, --watch prints each cycle's plan when the
// cycle ends (one array per cycle), not once at exit: whoever consumes the
// plan must start the runs while their locks are fresh.
func TestPollWatchPrintsEachCycle(t *testing.T) {
	w := startWatch(t)
	out, errb, done, cancel := &w.out, w.errb, w.done, w.cancel
	errb.waitFor(t, func(s string) bool { return strings.Count(s, `"msg":"poll cycle"`) >= 3 })
	printed := out.String()
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after a stop signal; stderr %s", code, errb.String())
	}
	if !strings.Contains(printed, `"agent":"triage"`) {
		t.Fatalf("the dispatched plan was not printed while watching: %q", printed)
	}
	// Stopping prints one line, the last, with the reason.
	logLines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	stop := `"msg":"poll --watch stopped; the cycle under way finished or rolled back","reason":"interrupted (SIGINT)"`
	if strings.Count(errb.String(), "poll --watch stopped") != 1 || !strings.Contains(logLines[len(logLines)-1], stop) {
		t.Errorf("want one last line %s; stderr:\n%s", stop, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(printed), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[1]) != "[]" {
		t.Errorf("want one array per cycle ([] for quiet ones), got %q", printed)
	}
}

// watch is a `fullsend poll --watch` running in the background.
type watch struct {
	out    syncio.Buffer
	errb   *notifyBuffer
	done   chan int // the exit code
	cancel func()   // as SIGINT does
}

// startWatch starts `poll --watch --interval 20ms` plus args on a fixture
// holding one issue with a /fs-triage comment by a developer.
func startWatch(t *testing.T, args ...string) *watch {
	t.Helper()
	f := newPollFixture(t)
	k := f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"})
	f.sim.AddComment(k, "acct-dev", "/fs-triage")
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	w := &watch{errb: newNotifyBuffer(), done: make(chan int, 1), cancel: func() { cancel(Signal{Signal: syscall.SIGINT}) }}
	app := &App{Stdin: strings.NewReader(""), Stdout: &w.out, Stderr: w.errb, Getenv: func(k string) string { return f.env[k] }}
	go func() {
		w.done <- Run(ctx, app, append([]string{"--config-dir", f.dir, "--log-format", "json", "poll", "--watch", "--interval", "20ms"}, args...))
	}()
	return w
}

// tickingClock is a clock for the Jira emulator that moves on by a
// millisecond (its resolution) at every reading, so that each write gets
// a later timestamp than the one before without the test sleeping.
func tickingClock(start time.Time) func() time.Time {
	var mu sync.Mutex
	now := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
}

// notifyBuffer is a goroutine-safe buffer a test can wait on (waitFor)
// without polling on a timer.
type notifyBuffer struct{ syncio.Buffer }

func newNotifyBuffer() *notifyBuffer { return &notifyBuffer{} }

// waitFor returns once cond holds for the buffer's contents, re-checked
// after every write; it fails the test after 10s.
func (b *notifyBuffer) waitFor(t *testing.T, cond func(string) bool) {
	t.Helper()
	select {
	case <-b.When(cond):
	case <-time.After(10 * time.Second):
		t.Fatalf("condition not met within 10s; output:\n%s", b.String())
	}
}
