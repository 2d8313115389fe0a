// Package polllock is the poll lock that pollers (package jirapoll) and
// runners (package runner) share: the lock document stored on a work item
// and its property key, its two phases (phase.go), the lock reference
// handed to runs (ISSUE-KEY/property.key, ref.go), the merge and removal
// of run entries (runs.go), lock ids and the staleness rule. The documents
// beside it are packages of their own: lastcheck, cursor, receipts,
// quarantine. It does no I/O. The protocol is described in
// ARCHITECTURE.md.
package polllock

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jirakey"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Phases of a lock.
const (
	PhasePending    = "pending"
	PhaseDispatched = "dispatched"
	PhaseRunning    = "running"
)

// Lock is the value of the lock property.
type Lock struct {
	ID    string     `json:"id"`    // poller UUID (the lock id handed to runs)
	TS    time.Time  `json:"ts"`    // last write, RFC 3339 UTC
	Phase string     `json:"phase"` // pending | dispatched | running
	Runs  []plan.Ref `json:"runs"`
	// From is the item's checkpoint before the dispatch whose runs the
	// lock awaits (see Owed); absent in locks of older pollers.
	From *Position `json:"from,omitempty"`
	// Gone lists the ids of the unclaimed locks this one took over, newest
	// last (at most MaxGone): runs dispatched under them cannot start any
	// more, so their intents are dispatched again without asking the
	// platform, while intents of other locks are looked up.
	Gone []string `json:"gone,omitempty"`
	// Entity gives, per harness, the entity version its run was
	// dispatched for and which attempt at that version it is: the run
	// writes its success receipt from it (Receipts.Succeeded). Absent for
	// event-only harnesses.
	Entity map[string]EntityRun `json:"entity,omitempty"`
}

// EntityRun is what a lock tells an entity-source harness's run about the
// entity it was dispatched for.
type EntityRun struct {
	Version string `json:"version"`
	Attempt int    `json:"attempt"`
	// Attribution is the audit record of a scheduled run (nil for an
	// event-backed one): the runner hands it to the agent.
	Attribution *plan.Attribution `json:"attribution,omitempty"`
}

// MaxGone bounds Lock.Gone: a chain of takeovers longer than that with no
// checkpoint between is not expected (each taker dispatches), and an
// intent whose lock fell off the list is looked up on the platform.
const MaxGone = 8

// Superseding is the Gone list of a lock that takes l over unclaimed:
// l's own list and l's id.
func (l Lock) Superseding() []string {
	g := append(slices.Clone(l.Gone), l.ID)
	if len(g) > MaxGone {
		g = g[len(g)-MaxGone:]
	}
	return g
}

// HeldBy reports whether the lock carries id and is not stale at now.
func (l Lock) HeldBy(id string, now time.Time, threshold time.Duration) bool {
	return l.ID == id && !l.Stale(now, threshold)
}

// Stale reports whether the lock is older than threshold at now.
// A timestamp in the future beyond the threshold is treated as stale too
// (a corrupt or clock-skewed value must not lock an issue forever).
func (l Lock) Stale(now time.Time, threshold time.Duration) bool {
	age := now.Sub(l.TS)
	return age > threshold || age < -threshold
}

// Parse decodes a lock value; a corrupt value is an error naming the problem.
func Parse(raw []byte) (Lock, error) {
	var l Lock
	if err := json.Unmarshal(raw, &l); err != nil {
		return Lock{}, fmt.Errorf("poll lock: not a lock object: %v", err)
	}
	if l.ID == "" {
		return Lock{}, fmt.Errorf("poll lock: missing id")
	}
	if l.TS.IsZero() {
		return Lock{}, fmt.Errorf("poll lock: missing ts")
	}
	switch l.Phase {
	case PhasePending, PhaseDispatched, PhaseRunning:
	default:
		return Lock{}, fmt.Errorf("poll lock: unknown phase %q", l.Phase)
	}
	return l, nil
}

// Marshal encodes the lock with a UTC timestamp and a non-null runs array.
func (l Lock) Marshal() []byte {
	l.TS = l.TS.UTC().Truncate(time.Millisecond)
	if l.From != nil {
		f := Position{TS: l.From.TS.UTC(), Harness: maps.Clone(l.From.Harness)}
		for h, t := range f.Harness {
			f.Harness[h] = t.UTC()
		}
		l.From = &f
	}
	if l.Runs == nil {
		l.Runs = []plan.Ref{}
	}
	b, _ := json.Marshal(l)
	return b
}

// Keys returns the lock and lastCheck property keys for a target repo
// `owner/repo` (nested paths keep every segment): fullsend.poll.{owner}.{repo}.lock
// and fullsend.poll.{owner}.{repo}.lastCheck.
func Keys(repo string) (lock, lastCheck string) {
	return jirakey.PollProperty(repo, "lock"), jirakey.PollProperty(repo, "lastCheck")
}

// Unclaimed reports whether l lists no runs or an entry no run claimed
// yet (without an id): its runs are then partly known only to lastCheck
// (RunsOf).
func (l Lock) Unclaimed() bool {
	return len(l.Runs) == 0 || slices.ContainsFunc(l.Runs, func(r plan.Ref) bool { return r.ID == "" })
}
