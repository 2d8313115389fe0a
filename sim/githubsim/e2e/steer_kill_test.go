package e2e_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/procgroup/procgrouptest"
	"github.com/fullsend-dev/fullsend/internal/steer"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// The crash test of steering: the real `fullsend run` (built once, with
// -tags killpoints), its agent reading the mailbox and acknowledging,
// and the runner SIGKILLed at each point a follow-up passes; then the
// platform goes on as it would, and the follow-up is either delivered
// and recorded (its pending run exits without an agent; on Jira no new
// dispatch) or still pending (the pending run runs its agent with it),
// never both, never neither; and the agent died with its runner.

// The kill points, in the order a follow-up passes them. after-ack is
// the agent's: it SIGKILLs its runner right after acknowledging, while
// it still runs (as the OOM killer would); the others are the runner's
// own (cli/run_killpoints.go).
const killAfterAck = "after-ack"

var killPoints = []struct {
	point    string
	recorded bool // the follow-up ends delivered and recorded
}{
	{steer.KillBeforeOffer, false},
	{steer.KillAfterOffer, false},
	{killAfterAck, false},
	{steer.KillBeforeRecord, false},
	{steer.KillAfterRecord, true},
	{steer.KillBeforeEnd, true},
	{"", true}, // not killed
}

const (
	firstText    = "/fs-triage the importer drops rows"
	followUpText = "/fs-triage also handle the retries"
)

// crashAgent is the harness command. As the active run's agent it
// starts a child (so that its group has more than itself), tells the
// test (the FIFO $CRASH_DIR/started) its pid, its child's and its
// runner's, waits (bounded) for a mailbox line, acknowledges it, and
// exits 0; with $CRASH_AFTER_ACK=1 it SIGKILLs its runner after the
// acknowledgment and waits for its child. As the run of the follow-up
// (its event carries the follow-up's text) it only notes which
// processes of the earlier agent still run, in $CRASH_DIR/followup-ran.
const crashAgent = `dir="$CRASH_DIR"
if grep -q 'also handle the retries' "$FULLSEND_EVENT_FILE"; then
  alive=""
  for p in $(cat "$dir/pids"); do
    if [ -e /proc/$p ] && ! grep -q '^State:[[:space:]]*Z' /proc/$p/status 2>/dev/null; then alive="$alive $p"; fi
  done
  echo "alive:$alive" >> "$dir/followup-ran"
  exit 0
fi
sleep 600 &
child=$!
echo "$$ $child" > "$dir/pids"
echo "$$ $child $PPID" > "$dir/started"
i=0
while ! grep -q . "$FULLSEND_STEER_FILE"; do
  i=$((i+1)); [ $i -gt 3000 ] && exit 7
  sleep 0.01
done
sed -n 's/^{"id":"\(comment-[0-9]*\)".*/\1/p' "$FULLSEND_STEER_FILE" >> "$FULLSEND_STEER_ACK_FILE"
if [ "$CRASH_AFTER_ACK" = 1 ]; then
  kill -KILL $PPID
  wait
fi
kill $child
exit 0
`

// crashHarness is the harness file of the crash tests.
func crashHarness() string {
	return triageHarness(crashAgent, "CRASH_DIR, CRASH_AFTER_ACK", "{enabled: true}")
}

var killBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// killBinary builds fullsend with -tags killpoints, once per test binary.
func killBinary(t *testing.T) string {
	t.Helper()
	killBin.once.Do(func() {
		killBin.dir, killBin.err = os.MkdirTemp("", "fullsend-killpoints-")
		if killBin.err != nil {
			return
		}
		killBin.path = filepath.Join(killBin.dir, "fullsend")
		out, err := exec.Command("go", "build", "-tags", "killpoints", "-o", killBin.path,
			"github.com/fullsend-dev/fullsend/cmd/fullsend").CombinedOutput()
		if err != nil {
			killBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if killBin.err != nil {
		t.Fatal(killBin.err)
	}
	return killBin.path
}

func removeKillBinary() {
	if killBin.dir != "" {
		_ = os.RemoveAll(killBin.dir)
	}
}

// crashDir is a run's scratch directory for the agent: its FIFO.
func crashDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "started"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// killEnv is the environment of the active run's `fullsend run`: its
// kill point (once: the pending run, started by the same platform with
// the same environment, is not killed), discovery on SIGUSR1, and the
// agent's variables.
func killEnv(point, dir string) map[string]string {
	env := map[string]string{"FULLSEND_TEST_STEER_TICKS": "SIGUSR1", "CRASH_DIR": dir, "PATH": os.Getenv("PATH")}
	switch point {
	case "":
	case killAfterAck:
		env["CRASH_AFTER_ACK"] = "1"
	default:
		env["FULLSEND_TEST_KILL_AT"], env["FULLSEND_TEST_KILL_ONCE"] = point, filepath.Join(dir, "killed")
	}
	return env
}

// proc is a `fullsend run` the test started.
type proc struct {
	cmd  *exec.Cmd
	logs *syncio.Buffer
	done chan struct{}
	err  error
}

// startRun starts bin as `fullsend run` with exactly env.
func startRun(t *testing.T, bin, configDir string, env map[string]string) *proc {
	t.Helper()
	p := &proc{logs: &syncio.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, "run", "--config-dir", configDir, "--log-format", "json")
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.done })
	return p
}

// wait waits for the run to end and reports how: its exit code, or -1
// when a signal killed it.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("fullsend run did not end\n%s", p.logs.String())
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// agentPids are what the active run's agent reported when it started.
type agentPids struct{ agent, child, runner int }

// started waits for the active run's agent to report through the FIFO;
// ended, when closed, means the run ended without it.
func started(t *testing.T, dir string, ended <-chan struct{}, logs func() string) agentPids {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "started"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(f).ReadString('\n')
		line <- s
	}()
	var s string
	select {
	case s = <-line:
	case <-ended:
		t.Fatalf("the run ended before its agent started\n%s", logs())
	}
	var ps agentPids
	if _, err := fmt.Sscan(s, &ps.agent, &ps.child, &ps.runner); err != nil {
		t.Fatalf("agent's report %q: %v", s, err)
	}
	return ps
}

// usr1 makes the runner discover now (SIGUSR1, killpoints builds only).
func usr1(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		t.Fatalf("SIGUSR1 to the runner: %v", err)
	}
}

// noOrphans checks that nothing of the active run's agent is left.
func noOrphans(t *testing.T, ps agentPids) {
	t.Helper()
	for _, pid := range []int{ps.agent, ps.child} {
		gone, err := procgrouptest.ExitedWithin(pid, 10*time.Second)
		if err != nil || !gone {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the agent's process %d outlived its runner (%v)", pid, err)
		}
	}
}

// followUpRuns is how many times an agent ran with the follow-up, and
// the earlier agent's processes each found still running.
func followUpRuns(t *testing.T, dir string) (int, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "followup-ran"))
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var alive []string
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		if rest := strings.TrimSpace(strings.TrimPrefix(l, "alive:")); rest != "" {
			alive = append(alive, rest)
		}
	}
	return len(lines), alive
}

// checkOutcome is the assertion of every platform and point.
func checkOutcome(t *testing.T, recordedWant bool, records int, dir string, logs string) {
	t.Helper()
	ran, alive := followUpRuns(t, dir)
	if len(alive) > 0 {
		t.Errorf("the follow-up's run started beside the earlier agent's processes %v", alive)
	}
	switch {
	case records > 1:
		t.Fatalf("the follow-up was recorded %d times\n%s", records, logs)
	case records == 1 && ran > 0:
		t.Fatalf("the follow-up was delivered and recorded, and run again (%d)\n%s", ran, logs)
	case records == 0 && ran != 1:
		t.Fatalf("the follow-up was not recorded, and ran %d times (lost or doubled)\n%s", ran, logs)
	case (records == 1) != recordedWant:
		t.Fatalf("recorded %v, want %v\n%s", records == 1, recordedWant, logs)
	}
}

// pointName names a subtest.
func pointName(p string) string {
	if p == "" {
		return "not killed"
	}
	return "kill " + p
}

// wantExit is how the active run ends at point: killed, or exit 0.
func wantExit(point string) int {
	if point == "" {
		return 0
	}
	return -1
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
