package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
	"go.uber.org/goleak"
)

const runEventJSON = `{"repo":"acme/platform",
 "entity":{"kind":"work_item","id":10042,"key":"PROJ-1","url":"https://acme.atlassian.net/browse/PROJ-1"},
 "transition":{"kind":"comment_added","comment":{"command":"/fs-triage","body":"/fs-triage go","instruction":"go"}},
 "actor":{"id":"557058:abc123","kind":"human","role":"write","is_entity_author":false},
 "state":{"labels":["bug"]},
 "source":{"system":"jira","raw_type":"comment","raw_action":"created"}}`

// runAgentEnv is the variable that makes the test binary act as the agent
// in TestRunHelperAgent; harnesses pass it through their run.env allow-list.
const runAgentEnv = "FULLSEND_RUN_TEST_AGENT"

// TestRunHelperAgent is the test agent, started as
// `<test binary> -test.run=^TestRunHelperAgent$ -- STEP...` with
// FULLSEND_RUN_TEST_AGENT=1. Steps: touch=FILE, env=FILE (sorted
// environment), signal=FIFO (writes a byte to the named pipe: the test
// learns the agent runs without polling), block (waits for SIGTERM and
// exits 143 as a killed process would), sleep=DUR (simulated work),
// exit=N. Run normally it does nothing.
func TestRunHelperAgent(t *testing.T) {
	if os.Getenv(runAgentEnv) != "1" {
		return
	}
	code := 0
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	for _, st := range args {
		name, arg, _ := strings.Cut(st, "=")
		switch name {
		case "touch":
			_ = os.WriteFile(arg, nil, 0o600)
		case "env":
			env := os.Environ()
			sort.Strings(env)
			_ = os.WriteFile(arg, []byte(strings.Join(env, "\n")+"\n"), 0o600)
		case "sleep":
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
		case "signal":
			if f, err := os.OpenFile(arg, os.O_WRONLY, 0); err == nil {
				_, _ = f.Write([]byte{1})
				f.Close()
			}
		case "block":
			term := make(chan os.Signal, 1)
			signal.Notify(term, syscall.SIGTERM)
			<-term
			syscall.Exit(128 + int(syscall.SIGTERM))
		case "exit":
			code, _ = strconv.Atoi(arg)
		}
	}
	syscall.Exit(code) // no test framework output, no race-detector exit delay
}

// runFixture is a config directory whose jira-poll driver points at a Jira
// emulator holding issue PROJ-1 with a fresh lock carrying lockID.
type runFixture struct {
	dir    string
	sim    *jirasim.Server
	issue  string
	prop   string
	lockID string
	env    map[string]string
}

func newRunFixture(t *testing.T, steps ...string) *runFixture {
	t.Helper()
	return newSkewedRunFixture(t, 0, steps...)
}

// newSkewedRunFixture is newRunFixture with the Jira emulator's clock skew
// ahead of this host's (the lock is fresh on the emulator's clock).
func newSkewedRunFixture(t *testing.T, skew time.Duration, steps ...string) *runFixture {
	t.Helper()
	// Registered first, so it runs after every other cleanup (the
	// emulator's Close): nothing the run started may outlive it.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	site := func() time.Time { return time.Now().Add(skew) }
	sim := jirasim.New(jirasim.Options{RequiredToken: "jira-secret", Now: site})
	base, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	f := &runFixture{dir: t.TempDir(), sim: sim, lockID: "lock-1"}
	f.issue = sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "x"})
	f.prop, _ = polllock.Keys("acme/platform")
	sim.SetPropertyDirect(f.issue, f.prop, polllock.Lock{ID: f.lockID, TS: site(), Phase: polllock.PhaseDispatched}.Marshal())
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := []string{exe, "-test.run=^TestRunHelperAgent$", "--"}
	cmd = append(cmd, steps...)
	quoted := make([]string, len(cmd))
	for i, c := range cmd {
		quoted[i] = strconv.Quote(c)
	}
	f.write(t, "config.yaml", fmt.Sprintf(`version: 1
repo: acme/platform
agents:
  - name: triage
    source: triage.yaml
  - name: nocmd
    source: nocmd.yaml
  - name: off
    source: triage.yaml
    enabled: false
poll:
  input_drivers:
    - type: jira-poll
      connection:
        base_url: %s
        token_env: JIRA_TOKEN
      queries: ["project = PROJ"]
      lock:
        stale_threshold: 900s
        refresh_interval: 50ms
`, base))
	f.write(t, "triage.yaml", fmt.Sprintf(`role: triage
trigger: 'event.transition.kind == "comment_added"'
run:
  command: [%s]
  timeout: 5s
  env: [%s, MODEL_KEY]
  isolation: none
`, strings.Join(quoted, ", "), runAgentEnv))
	f.write(t, "nocmd.yaml", "role: triage\nrun:\n  isolation: none\n  env: ["+runAgentEnv+"]\n")
	f.write(t, "event.json", runEventJSON)
	f.env = map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/home/ci", runAgentEnv: "1",
		"JIRA_TOKEN": "jira-secret", "GITHUB_TOKEN": "ghs_secret", "MODEL_KEY": "mk", "GITHUB_RUN_ID": "77",
		"GITHUB_REPOSITORY": "acme/platform"}
	return f
}

func (f *runFixture) write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (f *runFixture) pollLock() string {
	return fmt.Sprintf(`{"id":%q,"driver":"jira-poll","property":"%s/%s"}`, f.lockID, f.issue, f.prop)
}

// run executes `fullsend --config-dir DIR args...` and returns the exit
// code and stderr.
func (f *runFixture) run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	// The agent's output and fullsend's log share stderr, written from
	// different goroutines: the sink must be safe for that, as a file is.
	var stdout, stderr syncio.Buffer
	app := &App{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return f.env[k] }}
	code := Run(context.Background(), app, append([]string{"--config-dir", f.dir, "--log-format", "text"}, args...))
	out := stderr.String()
	if strings.Contains(out, "jira-secret") || strings.Contains(out, "ghs_secret") {
		t.Fatalf("a secret was printed:\n%s", out)
	}
	return code, out
}
