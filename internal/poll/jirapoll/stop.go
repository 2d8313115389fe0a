package jirapoll

import (
	"fmt"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// firstErr keeps the first error that must stop the cycle.
type firstErr struct {
	mu  sync.Mutex
	err error
}

func (f *firstErr) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *firstErr) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// classifyErr sorts a per-issue API error: auth stops the cycle, 404 means
// the issue is gone, anything else skips the issue.
func classifyErr(it *poll.Item, what string, err error, stop *firstErr) {
	switch {
	case jira.IsAuth(err):
		stop.set(fmt.Errorf("%s on %s: %w: %w", what, it.ID, poll.ErrAuth, err))
	case jira.IsNotFound(err):
		it.Vanish()
	default:
		it.Fail(fmt.Errorf("%s on %s: %w", what, it.ID, err))
	}
}
