package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// An agent whose output pipe lost its reader (the local executor's poller
// killed with SIGKILL) keeps running to its end instead of dying of
// SIGPIPE at its next line: the run copies its output and drops what
// nobody reads.
func TestAgentOutlivesTheReaderOfItsOutput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close() // the reader is gone before the agent writes
	done := filepath.Join(t.TempDir(), "done")
	res, err := Process{Command: []string{"/bin/sh", "-c", `echo out; echo err >&2; echo finished >"$1"`, "sh", done},
		Stdout: w, Stderr: w, Grace: 5 * time.Second}.Run(context.Background())
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("res %+v err %v; want the agent to end on its own with 0", res, err)
	}
	if b, err := os.ReadFile(done); err != nil || string(b) != "finished\n" {
		t.Fatalf("the agent did not finish: %q %v", b, err)
	}
}

// A terminal or a file is handed to the agent as it is; a pipe or any
// other writer goes through the run.
func TestAgentOutputPassesFilesThrough(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if got := agentOutput(f); got != f {
		t.Errorf("a regular file is wrapped: %T", got)
	}
	if got := agentOutput(w); got == w {
		t.Error("a pipe is handed to the agent as it is")
	}
	if agentOutput(nil) != nil {
		t.Error("nil is not nil")
	}
}
