package cli

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

const brokenPipeHelper = "FULLSEND_CLI_BROKEN_PIPE_HELPER"

// TestMain lets the test binary play `fullsend run` for
// TestRunSurvivesBrokenStderr.
// brokenStderrHelper writes its log after the reader of its stderr is
// gone, with the run's signals on: the writes fail and it goes on.
func brokenStderrHelper() {
	_, stop := notifySignals()
	defer stop()
	for range 3 {
		fmt.Fprintln(os.Stderr, "agent finished")
	}
	os.Exit(7) // reached only if the writes did not kill the process
}

// `fullsend run` outlives the reader of its output (the local executor's
// poller killed with SIGKILL): it must still reach its lock release
// instead of dying of SIGPIPE at its next log line.
func TestRunSurvivesBrokenStderr(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), brokenPipeHelper+"=1")
	cmd.Stderr, cmd.Stdout = w, w
	err = cmd.Run()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("helper ended with %v (%v); want exit 7, after writing to a broken stderr", cmd.ProcessState, err)
	}
}
