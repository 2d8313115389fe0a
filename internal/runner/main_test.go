package runner

import (
	"os"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// TestMain turns the test binary into the test agent when it is started
// with agentFlag (see agent_test.go); otherwise it runs the tests and checks
// that no goroutine outlives them.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == agentFlag {
		// syscall.Exit skips the race detector's exit delay.
		syscall.Exit(agentMain(os.Args[2:]))
	}
	goleak.VerifyTestMain(m)
}
