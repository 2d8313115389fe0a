// Package lastcheck is the lastCheck document pollers keep on each work
// item beside the poll lock (ARCHITECTURE.md, "The poll-lock protocol"):
// the item's checkpoint positions, per harness where one is behind, the
// intents of the dispatches about to be made (intent.go), and the runs of
// the last dispatch with the lock they were dispatched under (RunsOf). It
// does no I/O.
package lastcheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// LastCheck is the value of the lastCheck property: the timestamp of the
// last successfully dispatched change, plus per-harness progress so that a
// partially failed multi-harness dispatch retries only what failed, plus
// the dispatches about to be made (per harness, see Intent).
type LastCheck struct {
	TS      time.Time            `json:"ts"`
	Harness map[string]time.Time `json:"harness,omitempty"`
	Intents map[string]Intent    `json:"intents,omitempty"`
	// Runs are the runs of the item's last dispatch, and Lock the id of
	// the poll lock they were dispatched under. The lock lists only
	// placeholders for them (Placeholders) until each claims one when it
	// starts, so until then this is where they are found (RunsOf).
	Runs []plan.Ref `json:"runs,omitempty"`
	Lock string     `json:"lock,omitempty"`
}

// RunsOf is the runs of lock l: the entries runs claimed (with an id),
// plus, while an entry is still unclaimed (a placeholder, see
// Placeholders) or l lists none, the runs of the last dispatch under l's
// id, which lastCheck lc records.
func (lc LastCheck) RunsOf(l polllock.Lock) []plan.Ref {
	if !l.Unclaimed() || lc.Lock == "" || lc.Lock != l.ID {
		return l.Runs
	}
	out := slices.DeleteFunc(slices.Clone(l.Runs), func(r plan.Ref) bool { return r.ID == "" })
	for _, r := range lc.Runs {
		if !slices.ContainsFunc(out, func(o plan.Ref) bool { return o.Driver == r.Driver && o.ID == r.ID }) {
			out = append(out, r)
		}
	}
	return out
}

// Parse decodes a lastCheck value. A bare JSON string timestamp is
// accepted too. A corrupt value is an error; callers fall back to the
// issue's creation as the baseline and log it.
func Parse(raw []byte) (LastCheck, error) {
	var lc LastCheck
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return LastCheck{}, fmt.Errorf("lastCheck: %q is not an RFC 3339 time", s)
		}
		return LastCheck{TS: t}, nil
	}
	if err := json.Unmarshal(raw, &lc); err != nil {
		return LastCheck{}, fmt.Errorf("lastCheck: not a lastCheck object: %v", err)
	}
	if lc.TS.IsZero() && len(lc.Intents) == 0 {
		// A zero ts is valid only with intents: the first dispatch of an
		// item that has no checkpoint yet.
		return LastCheck{}, fmt.Errorf("lastCheck: missing ts")
	}
	return lc, nil
}
