//go:build killpoints

package cli

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fullsend-dev/fullsend/internal/runner"
)

// Built with -tags killpoints only (the crash tests' binary,
// sim/githubsim/e2e): `fullsend run` SIGKILLs itself at the steering
// point $FULLSEND_TEST_KILL_AT names (steer.Kill*), once: only when it
// can create the file $FULLSEND_TEST_KILL_ONCE (when set); and with
// $FULLSEND_TEST_STEER_TICKS=SIGUSR1, steering discovers at the agent's
// start and on each SIGUSR1 instead of its cadence. A release build has
// none of it (run_killpoints_off.go).
func testHooks(req *runner.Request, getenv func(string) string) {
	if getenv("FULLSEND_TEST_STEER_TICKS") == "SIGUSR1" {
		sig := make(chan os.Signal, 8)
		signal.Notify(sig, syscall.SIGUSR1)
		ticks := make(chan time.Time)
		go func() {
			for range sig {
				ticks <- time.Now()
			}
		}()
		req.SteerTicks = ticks
	}
	at, once := getenv("FULLSEND_TEST_KILL_AT"), getenv("FULLSEND_TEST_KILL_ONCE")
	if at == "" {
		return
	}
	req.SteerKill = func(point string) bool {
		if point != at {
			return false
		}
		if once != "" {
			f, err := os.OpenFile(once, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
			if err != nil {
				return false
			}
			_ = f.Close()
		}
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}
