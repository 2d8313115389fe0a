package runner

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/procgroup/procgrouptest"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// agentFlag makes the test binary act as a tiny agent. The steps after it
// run in order:
//
//	env=FILE        write the sorted environment to FILE, one NAME=value a line
//	touch=FILE      create FILE (proves the agent ran)
//	event=FILE      copy $FULLSEND_EVENT_FILE to FILE
//	entity=FILE     copy $FULLSEND_ENTITY_FILE to FILE
//	out=TEXT        print TEXT to stdout; err=TEXT to stderr
//	sleep=DUR       sleep (the runner and jirasim tests)
//	hang            block until a signal ends the process
//	waitfile=FILE   wait (up to 10s) until FILE exists
//	stdin-ack=FILE  read one steering line from stdin into FILE and acknowledge it
//	ignore-term     ignore SIGTERM
//	trap-term=FILE  on SIGTERM or SIGINT write the signal name to FILE and exit 0
//	exit=N          exit with N (default 0 after the last step)
//	supervise=SH    act as `fullsend run`: run the shell script SH as the
//	                agent under Process (PATH only), then print dumpable=N
//	spawn=SH        the control: run SH as a plain child, then print dumpable=N
const agentFlag = "-fullsend-test-agent"

func agentMain(steps []string) int {
	for _, st := range steps {
		name, arg, _ := strings.Cut(st, "=")
		switch name {
		case "env":
			env := os.Environ()
			sort.Strings(env)
			if err := os.WriteFile(arg, []byte(strings.Join(env, "\n")+"\n"), 0o600); err != nil {
				return 90
			}
		case "touch":
			if err := os.WriteFile(arg, nil, 0o600); err != nil {
				return 91
			}
		case "event":
			b, err := os.ReadFile(os.Getenv("FULLSEND_EVENT_FILE"))
			if err != nil || os.WriteFile(arg, b, 0o600) != nil {
				return 92
			}
		case "entity":
			b, err := os.ReadFile(os.Getenv("FULLSEND_ENTITY_FILE"))
			if err != nil || os.WriteFile(arg, b, 0o600) != nil {
				return 93
			}
		case "out":
			fmt.Fprintln(os.Stdout, arg)
		case "err":
			fmt.Fprintln(os.Stderr, arg)
		case "sleep":
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
		case "hang":
			procgrouptest.Hang()
		case "waitfile":
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				if _, err := os.Stat(arg); err == nil {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		case "stdin-ack":
			// read one follow-up from standard input, keep it in arg, and
			// acknowledge its id
			line, err := bufio.NewReader(os.Stdin).ReadString('\n')
			m, derr := steer.DecodeMessage([]byte(line))
			if err != nil || derr != nil || os.WriteFile(arg, []byte(line), 0o600) != nil {
				return 94
			}
			f, err := os.OpenFile(os.Getenv(steer.EnvAckFile), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return 95
			}
			fmt.Fprintln(f, m.ID)
			f.Close()
		case "ignore-term":
			signal.Ignore(syscall.SIGTERM)
		case "trap-term":
			ch := make(chan os.Signal, 1)
			signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
			go func() {
				s := <-ch
				_ = os.WriteFile(arg, []byte(s.String()), 0o600)
				syscall.Exit(0)
			}()
		case "exit":
			n, _ := strconv.Atoi(arg)
			return n
		case "supervise", "spawn":
			if code := superviseScript(name == "supervise", arg); code != 0 {
				return code
			}
		default:
			fmt.Fprintf(os.Stderr, "test agent: unknown step %q\n", st)
			return 99
		}
	}
	return 0
}

// agentCmd is the command line that starts the test agent with steps.
func agentCmd(t *testing.T, steps ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe, agentFlag}, steps...)
}
