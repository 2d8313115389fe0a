//go:build !killpoints

package cli

import "github.com/fullsend-dev/fullsend/internal/runner"

// testHooks does nothing in a release build: the crash tests' hooks are
// compiled in only with -tags killpoints (run_killpoints.go).
func testHooks(*runner.Request, func(string) string) {}
