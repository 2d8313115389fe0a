package local

import (
	"strconv"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

// maxEnded bounds the ended runs remembered; past it the set starts
// again (a run forgotten early is only cleaned up by the stale threshold).
const maxEnded = 4096

// endedRuns is the set of the sequence numbers of runs that ended.
type endedRuns struct {
	mu  sync.Mutex
	set map[uint64]struct{}
}

func (e *endedRuns) add(seq uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.set == nil || len(e.set) >= maxEnded {
		e.set = map[uint64]struct{}{}
	}
	e.set[seq] = struct{}{}
}

func (e *endedRuns) has(seq uint64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.set[seq]
	return ok
}

// Ended reports whether the run of ref, started by this driver, has ended
// (poll.RunTracker): the poll cycle then removes a lock the run's release
// may have raced with.
func (d *Driver) Ended(ref plan.Ref) bool {
	if ref.Driver != DriverName {
		return false
	}
	seq, err := strconv.ParseUint(ref.ID, 10, 64)
	return err == nil && d.ended.has(seq)
}
