package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/procgroup/procgrouptest"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/internal/runreport"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

const helperEnv = "FULLSEND_LOCAL_TEST_HELPER"

// helperMain plays `fullsend run` when the test binary is started by the
// driver under test. Its behaviour depends on the harness name: "ok"
// reports what it received, "fail" exits 3, "hang" waits to be terminated.
func helperMain() bool {
	if os.Getenv(helperEnv) == "" {
		return pollerHelper() // plays a poller whose child outlives it (Linux)
	}
	a := os.Args[1:]
	flags := map[string]string{}
	for i := 1; i+1 < len(a); i += 2 {
		flags[a[i]] = a[i+1]
	}
	if len(a) < 9 || len(a)%2 != 1 || a[0] != "run" {
		fmt.Fprintf(os.Stderr, "bad args %q\n", a)
		os.Exit(2)
	}
	switch flags["--harness"] {
	case "survivor":
		survivorHelper(flags["--event-file"])
	case "fail":
		os.Exit(3)
	case "hang":
		fmt.Println("ready")
		procgrouptest.Hang()
	case "slow-stop":
		// Like `fullsend run` told to stop: it forwards SIGTERM to its agent,
		// waits for it (up to its own grace) and releases the poll lock
		// before it exits.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		fmt.Println("ready")
		<-sigs
		fmt.Println("lock released")
		os.Exit(0)
	}
	if mode, ok := strings.CutPrefix(flags["--harness"], "isolation-"); ok {
		os.Exit(reportIsolation(mode))
	}
	file := flags["--event-file"]
	st, err := os.Stat(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	data, _ := os.ReadFile(file)
	var ev event.Event
	if err := json.Unmarshal(data, &ev); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("file=%s mode=%o comment=%s\nlock=%s config=%s key=%s input=%q\n", file, st.Mode().Perm(),
		ev.Transition.Comment.Body, flags["--poll-lock"], flags["--config-dir"],
		os.Getenv("FULLSEND_SERIALIZATION_KEY"), os.Getenv("FULLSEND_NORMALIZED_EVENT"))
	fmt.Printf("run_id=%q\n", os.Getenv(RunIDEnv))
	fmt.Printf("log=%s/%s\n", flags["--log-format"], flags["--log-level"])
	fmt.Printf("report_fd=%q\n", os.Getenv(runreport.FDEnv))
	fmt.Fprint(os.Stderr, "no newline at the end")
	os.Exit(0)
	return true
}

func newProcessDriver(t *testing.T, grace time.Duration) (*Driver, *syncio.Buffer, *syncio.Buffer, *syncio.Buffer) {
	t.Helper()
	out, errw, logs := &syncio.Buffer{}, &syncio.Buffer{}, &syncio.Buffer{}
	d, err := newTestProcessDriver(t, Options{Grace: grace, Stdout: out, Stderr: errw,
		Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return d, out, errw, logs
}

// newTestProcessDriver builds a driver whose children are this test binary
// playing `fullsend run` (helperMain), with o's grace, output and clock.
func newTestProcessDriver(t *testing.T, o Options) (*Driver, error) {
	t.Helper()
	t.Setenv(helperEnv, "1")
	t.Setenv("FULLSEND_NORMALIZED_EVENT", `{"stale":"inherited"}`) // must not reach the child
	t.Setenv(RunIDEnv, "inherited")                                // replaced by the run's own id
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o.MaxParallel, o.KillDelay, o.Executable, o.ConfigDir, o.TempDir = 2, 200*time.Millisecond, exe, "cfg", t.TempDir()
	return New(o)
}

func TestProcessRunReceivesEventAndLock(t *testing.T) {
	d, out, errw, _ := newProcessDriver(t, time.Second)
	r := mkRun("ok", 1, "hello")
	r.PollLock = &plan.PollLock{ID: "u-1", Driver: "jira-poll", Property: "PROJ-1/fullsend.poll.acme.platform.lock"}
	res := d.Dispatch(context.Background(), []plan.Run{r})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	if err := d.Close(context.Background()); err != nil {
		t.Fatalf("close: %v", err)
	}
	prefix := "[ok ok:acme/platform:jira:work_item:1 #1] "
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(prefix) + `file=(\S+) mode=600 comment=hello$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("stdout lacks the event line:\n%s", out.String())
	}
	if _, err := os.Stat(m[1]); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("event file %s not removed: %v", m[1], err)
	}
	wantLock := prefix + `lock={"id":"u-1","driver":"jira-poll","property":"PROJ-1/fullsend.poll.acme.platform.lock"} config=cfg key=ok:acme/platform:jira:work_item:1 input=""` + "\n"
	if !strings.Contains(out.String(), wantLock) {
		t.Fatalf("stdout = %q, want line %q", out.String(), wantLock)
	}
	if want := prefix + `run_id="1"` + "\n"; !strings.Contains(out.String(), want) {
		t.Fatalf("stdout = %q, want the run id line %q (the Ref.ID of the dispatch: %+v)", out.String(), want, res[0].Ref)
	}
	if res[0].Ref == nil || res[0].Ref.ID != "1" {
		t.Fatalf("ref = %+v, want id 1", res[0].Ref)
	}
	if got, want := errw.String(), prefix+"no newline at the end\n"; got != want {
		t.Fatalf("stderr = %q, want %q", got, want)
	}
}

func TestProcessRunFailureIsLoggedAndCounted(t *testing.T) {
	d, _, _, logs := newProcessDriver(t, time.Second)
	d.Dispatch(context.Background(), []plan.Run{mkRun("fail", 1, "x")})
	err := d.Close(context.Background())
	if err == nil || err.Error() != "local: 1 run failed" {
		t.Fatalf("close = %v, want one failed run", err)
	}
	if d.Stats().Failed != 1 || !strings.Contains(logs.String(), "exit code 3") {
		t.Fatalf("failed = %d, logs:\n%s", d.Stats().Failed, logs.String())
	}
}

func TestProcessTerminatedAfterGrace(t *testing.T) {
	w := newWatchedProcessDriver(t, 100*time.Millisecond)
	w.d.Dispatch(context.Background(), []plan.Run{mkRun("hang", 1, "x")})
	<-w.ready
	stop, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	err := w.d.Close(stop)
	var se *CloseError
	if !errors.As(err, &se) || se.Terminated != 1 || se.Unfinished != 0 {
		t.Fatalf("close = %v", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("shutdown took %v", el)
	}
	if !strings.Contains(w.logs.String(), "terminated at shutdown") {
		t.Fatalf("logs lack the termination:\n%s", w.logs.String())
	}
}

// A terminated child is `fullsend run`: after SIGTERM it waits for its agent
// (which it kills after its own grace period, KillDelay) and then releases
// the poll lock. Killing it KillDelay after SIGTERM would race its own kill
// of the agent and cut the release short: the agent would be orphaned and
// the lock left behind. So the child's kill is timed KillDelay+Teardown
// after its SIGTERM.
func TestProcessTerminatedChildGetsTimeToTearDown(t *testing.T) {
	w := newWatchedProcessDriver(t, 50*time.Millisecond)
	w.d.Dispatch(context.Background(), []plan.Run{mkRun("slow-stop", 1, "x")})
	<-w.ready
	stop, cancel := context.WithCancel(context.Background())
	cancel()
	err := w.d.Close(stop)
	var se *CloseError
	if !errors.As(err, &se) || se.Terminated != 1 || se.Unfinished != 0 {
		t.Fatalf("close = %v", err)
	}
	if !strings.Contains(w.out.String(), "lock released") {
		t.Fatalf("the child was killed before its teardown; output:\n%s\nlogs:\n%s", w.out.String(), w.logs.String())
	}
	if kill := 200*time.Millisecond + DefaultTeardown; !w.clock.wasAsked(kill) {
		t.Fatalf("the child's kill was not timed KillDelay+Teardown (%s) after SIGTERM; timers: %v", kill, w.clock.durations())
	}
}

// watched is a process driver whose clock and output the test watches.
type watched struct {
	d     *Driver
	out   *syncio.Buffer
	logs  *syncio.Buffer
	ready <-chan struct{} // closed when a child printed "ready"
	clock *clock
}

// newWatchedProcessDriver builds a process driver whose Close grace
// expires at once and whose other timers never expire.
func newWatchedProcessDriver(t *testing.T, grace time.Duration) *watched {
	t.Helper()
	w := &watched{out: &syncio.Buffer{}, logs: &syncio.Buffer{},
		clock: &clock{fire: map[time.Duration]bool{grace: true}}}
	w.ready = w.out.When(syncio.Contains("ready\n"))
	var err error
	w.d, err = newTestProcessDriver(t, Options{Grace: grace, Stdout: w.out, Stderr: &syncio.Buffer{},
		Log: slog.New(slog.NewTextHandler(w.logs, nil)), After: w.clock.After})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// clock is Options.After for tests: the durations in fire expire at once,
// the others never; it records every duration asked for.
type clock struct {
	mu    sync.Mutex
	fire  map[time.Duration]bool
	asked []time.Duration
}

func (c *clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, d)
	ch := make(chan time.Time, 1)
	if c.fire[d] {
		ch <- time.Time{}
	}
	return ch
}

func (c *clock) durations() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.asked...)
}

func (c *clock) wasAsked(d time.Duration) bool { return slices.Contains(c.durations(), d) }

// The child's run id must reach the runner under the name it reads.
func TestRunIDEnvMatchesTheRunner(t *testing.T) {
	if RunIDEnv != runner.LocalRunIDEnv {
		t.Fatalf("local passes %s, fullsend run reads %s", RunIDEnv, runner.LocalRunIDEnv)
	}
	env := childEnv([]string{"PATH=/bin", RunIDEnv + "=9"}, Job{Seq: 42, Run: mkRun("ok", 1, "x")})
	var ids []string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, RunIDEnv+"="); ok {
			ids = append(ids, v)
		}
	}
	if len(ids) != 1 || ids[0] != "42" {
		t.Fatalf("run ids in the child environment = %q, want exactly [42]", ids)
	}
	ref := runner.CIRun(func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}, 1)
	if ref != (plan.Ref{Driver: DriverName, ID: "42"}) {
		t.Fatalf("the child would record %+v, want the dispatch ref {local 42}", ref)
	}
}

// A child `fullsend run` gets the parent's log format and level: its
// stderr is a pipe, where it would otherwise log JSON under a parent
// logging text on a terminal.
func TestProcessRunLogsInParentsFormat(t *testing.T) {
	cases := []struct {
		format, level string
		want          string
	}{
		{"text", "debug", "log=text/debug"},
		{"json", "warn", "log=json/warn"},
		{"", "", "log=/"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			out := &syncio.Buffer{}
			d, err := newTestProcessDriver(t, Options{Grace: time.Second, Stdout: out, Stderr: &syncio.Buffer{},
				LogFormat: tc.format, LogLevel: tc.level})
			if err != nil {
				t.Fatal(err)
			}
			if res := d.Dispatch(context.Background(), []plan.Run{mkRun("ok", 1, "hello")}); res[0].Err != nil {
				t.Fatal(res[0].Err)
			}
			if err := d.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "] "+tc.want+"\n") {
				t.Errorf("stdout %q lacks %q", out.String(), tc.want)
			}
		})
	}
}
