package cli

import (
	"context"
	"os"
	"testing"
)

// actAsFullsend, set to 1, makes this test binary the fullsend binary:
// the local executor starts children `fullsend run` from os.Executable().
const actAsFullsend = "FULLSEND_CLI_TEST_ACTS_AS_FULLSEND"

func TestMain(m *testing.M) {
	if os.Getenv(brokenPipeHelper) != "" {
		brokenStderrHelper()
	}
	if os.Getenv(actAsFullsend) == "1" {
		app := &App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
		os.Exit(Run(context.Background(), app, os.Args[1:]))
	}
	os.Exit(m.Run())
}
