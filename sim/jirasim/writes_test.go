package jirasim

import (
	"testing"

	"github.com/fullsend-dev/fullsend/sim/internal/simtest"
)

// Writes counts PUT, DELETE and POST requests, except the POSTs that only
// read (search, bulk changelogs), refused ones included.
func TestWritesCountsOnlyWrites(t *testing.T) {
	s := New(Options{})
	simtest.CheckWrites(t, s.Handler(), s.Writes, []simtest.WriteCase{
		{Method: "GET", Path: "/rest/api/3/myself", Auth: "Bearer t", Writes: 0},
		{Method: "POST", Path: "/rest/api/3/search/jql", Auth: "Bearer t", Writes: 0},
		{Method: "POST", Path: "/rest/api/3/changelog/bulkfetch", Auth: "Bearer t", Writes: 0},
		{Method: "PUT", Path: "/rest/api/3/user/properties/k?accountId=a", Auth: "Bearer t", Writes: 1},
		{Method: "PUT", Path: "/rest/api/3/issue/PROJ-1/properties/k", Auth: "", Writes: 2},
		{Method: "DELETE", Path: "/rest/api/3/issue/PROJ-1/properties/k", Auth: "Bearer t", Writes: 3},
	})
}
