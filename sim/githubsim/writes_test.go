package githubsim

import (
	"testing"

	"github.com/fullsend-dev/fullsend/sim/internal/simtest"
)

// Writes counts every request but GET and HEAD, refused ones included.
func TestWritesCountsOnlyWrites(t *testing.T) {
	s := New(Options{Token: "tok"})
	simtest.CheckWrites(t, s.Handler(), s.Writes, []simtest.WriteCase{
		{Method: "GET", Path: "/repos/acme/platform", Auth: "Bearer tok", Writes: 0},
		{Method: "HEAD", Path: "/repos/acme/platform", Auth: "Bearer tok", Writes: 0},
		{Method: "POST", Path: "/repos/acme/platform/actions/workflows/w.yml/dispatches", Auth: "Bearer tok", Writes: 1},
		{Method: "POST", Path: "/repos/acme/platform/actions/runs/1/cancel", Auth: "", Writes: 2},
	})
}
