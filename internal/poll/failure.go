package poll

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/english"
)

// ErrItemsFailed matches (errors.Is) the error of a cycle that ran to its
// end but in which some work item failed: an item skipped after an error
// a change quarantined, or a trigger that could not decide a change
// (retried next cycle). The cycle's other items were handled; the
// command still exits non-zero (1) so that a scheduler notices an issue
// that stays unprocessable (docs/polling.md). Failed dispatches alone do
// not make this error (the caller reports CycleStats.DispatchesFailed);
// when it is returned, the message counts them too.
var ErrItemsFailed = errors.New("some work items failed")

// ItemsError is the error Run returns with ErrItemsFailed.
type ItemsError struct {
	Driver      string
	Failed      int // CycleStats.ItemsFailed
	Quarantined int // CycleStats.ChangesQuarantined
	Dispatches  int // CycleStats.DispatchesFailed
	Triggers    int // CycleStats.TriggerErrors
}

func (e *ItemsError) Error() string {
	var parts []string
	add := func(n int, noun, verb string) {
		if n > 0 {
			parts = append(parts, english.Count(n, noun)+" "+verb)
		}
	}
	add(e.Failed, "item", "failed")
	add(e.Quarantined, "change", "quarantined")
	add(e.Dispatches, "dispatch", "failed")
	add(e.Triggers, "trigger", "could not decide")
	return fmt.Sprintf("%s: %s (failed items, dispatches and triggers are retried next cycle; quarantined changes are recorded on their items)",
		e.Driver, strings.Join(parts, ", "))
}

// Is makes errors.Is(err, ErrItemsFailed) true.
func (e *ItemsError) Is(target error) bool { return target == ErrItemsFailed }

// ItemsError is the error of a cycle that completed with per-item
// failures, or nil.
func (s CycleStats) ItemsError() error {
	if s.Interrupted || s.ItemsFailed+s.ChangesQuarantined+s.TriggerErrors == 0 {
		return nil
	}
	return &ItemsError{Driver: s.Driver, Failed: s.ItemsFailed, Quarantined: s.ChangesQuarantined, Dispatches: s.DispatchesFailed,
		Triggers: s.TriggerErrors}
}
