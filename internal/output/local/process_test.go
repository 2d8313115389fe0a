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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

const helperEnv = "FULLSEND_LOCAL_TEST_HELPER"

// helperMain plays `fullsend run` when the test binary is started by the
// driver under test. Its behaviour depends on the harness name: "ok"
// reports what it received, "fail" exits 3, "hang" waits to be terminated.
func helperMain() bool {
	if os.Getenv(helperEnv) == "" {
		return false
	}
	a := os.Args[1:]
	flags := map[string]string{}
	for i := 1; i+1 < len(a); i += 2 {
		flags[a[i]] = a[i+1]
	}
	if len(a) != 9 || a[0] != "run" {
		fmt.Fprintf(os.Stderr, "bad args %q\n", a)
		os.Exit(2)
	}
	switch flags["--harness"] {
	case "fail":
		os.Exit(3)
	case "hang":
		fmt.Println("ready")
		time.Sleep(time.Minute)
		os.Exit(0)
	case "slow-stop":
		// Like `fullsend run` told to stop: it forwards SIGTERM to its agent,
		// waits for it (up to its own grace) and releases the poll lock
		// before it exits.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		fmt.Println("ready")
		<-sigs
		time.Sleep(600 * time.Millisecond)
		fmt.Println("lock released")
		os.Exit(0)
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
	fmt.Fprint(os.Stderr, "no newline at the end")
	os.Exit(0)
	return true
}

func newProcessDriver(t *testing.T, grace time.Duration) (*Driver, *syncio.Buffer, *syncio.Buffer, *syncio.Buffer) {
	t.Helper()
	t.Setenv(helperEnv, "1")
	t.Setenv("FULLSEND_NORMALIZED_EVENT", `{"stale":"inherited"}`) // must not reach the child
	t.Setenv(RunIDEnv, "inherited")                                // replaced by the run's own id
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, errw, logs := &syncio.Buffer{}, &syncio.Buffer{}, &syncio.Buffer{}
	d, err := New(Options{MaxParallel: 2, Grace: grace, KillDelay: 200 * time.Millisecond,
		Executable: exe, ConfigDir: "cfg", TempDir: t.TempDir(), Stdout: out, Stderr: errw,
		Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return d, out, errw, logs
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
	if err == nil || err.Error() != "local: 1 run(s) failed" {
		t.Fatalf("close = %v, want one failed run", err)
	}
	if d.Stats().Failed != 1 || !strings.Contains(logs.String(), "exit code 3") {
		t.Fatalf("failed = %d, logs:\n%s", d.Stats().Failed, logs.String())
	}
}

func TestProcessTerminatedAfterGrace(t *testing.T) {
	d, out, _, logs := newProcessDriver(t, 100*time.Millisecond)
	d.Dispatch(context.Background(), []plan.Run{mkRun("hang", 1, "x")})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "ready") {
		if time.Now().After(deadline) {
			t.Fatalf("child never started; logs:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	err := d.Close(stop)
	var se *CloseError
	if !errors.As(err, &se) || se.Terminated != 1 || se.Unfinished != 0 {
		t.Fatalf("close = %v", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("shutdown took %v", el)
	}
	if !strings.Contains(logs.String(), "terminated at shutdown") {
		t.Fatalf("logs lack the termination:\n%s", logs.String())
	}
}

// A terminated child is `fullsend run`: after SIGTERM it waits for its agent
// (which it kills after its own grace period, KillDelay) and then releases
// the poll lock. Killing it KillDelay after SIGTERM would race its own kill
// of the agent and cut the release short: the agent would be orphaned and
// the lock left behind.
func TestProcessTerminatedChildGetsTimeToTearDown(t *testing.T) {
	d, out, _, logs := newProcessDriver(t, 50*time.Millisecond)
	d.Dispatch(context.Background(), []plan.Run{mkRun("slow-stop", 1, "x")})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "ready") {
		if time.Now().After(deadline) {
			t.Fatalf("child never started; logs:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop, cancel := context.WithCancel(context.Background())
	cancel()
	err := d.Close(stop)
	var se *CloseError
	if !errors.As(err, &se) || se.Terminated != 1 || se.Unfinished != 0 {
		t.Fatalf("close = %v", err)
	}
	if !strings.Contains(out.String(), "lock released") {
		t.Fatalf("the child was killed before its teardown; output:\n%s\nlogs:\n%s", out.String(), logs.String())
	}
}

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
