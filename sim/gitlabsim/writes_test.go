package gitlabsim

import (
	"testing"

	"github.com/fullsend-dev/fullsend/sim/internal/simtest"
)

// Writes counts every request but GET and HEAD, refused ones included.
func TestWritesCountsOnlyWrites(t *testing.T) {
	s := New(Options{Token: "tok"})
	simtest.CheckWrites(t, s.Handler(), s.Writes, []simtest.WriteCase{
		{Method: "GET", Path: "/api/v4/projects/1", Auth: "Bearer tok", Writes: 0},
		{Method: "HEAD", Path: "/api/v4/projects/1", Auth: "Bearer tok", Writes: 0},
		{Method: "POST", Path: "/api/v4/projects/1/pipeline?ref=main", Auth: "Bearer tok", Writes: 1},
		{Method: "POST", Path: "/api/v4/projects/1/pipelines/1/cancel", Auth: "", Writes: 2},
	})
}
