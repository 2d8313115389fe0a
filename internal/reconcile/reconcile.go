// Package reconcile owns the reconcile rule of scheduled discovery: given
// an entity-source harness's record on an entity (receipts.HarnessRecord:
// the last success receipt and the runs tried since) and the entity's
// current version, is a run due, to be waited for, or given up on? It
// also gives the receipt the harness's trigger sees as entity.receipt,
// and the per-harness cadence of entity.every. Pure: no I/O; the clock is
// the caller's (the tracker's, for times the tracker wrote).
package reconcile

import (
	"fmt"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// State says what the rule concluded.
type State string

// The states of a decision.
const (
	// Due: no receipt covers the version and nothing runs: dispatch.
	Due State = "due"
	// Handled: a success receipt covers the current version.
	Handled State = "handled"
	// Active: a run of the scope is active or pending.
	Active State = "active"
	// Backoff: earlier runs of the version ended without success; the
	// next one waits until Decision.NotBefore.
	Backoff State = "backoff"
	// GiveUp: the version's runs are spent: quarantine it with
	// Decision.Reason (once; Quarantined follows).
	GiveUp State = "give_up"
	// Quarantined: the version was given up on already.
	Quarantined State = "quarantined"
	// Unreadable: the harness's record cannot be read
	// (receipts.HarnessRecord.Unreadable): what it says of the runs
	// tried is unknown, so none is dispatched on it (that could widen the
	// retries) until a success of the harness, or a hand, replaces it.
	Unreadable State = "unreadable"
)

// Policy is a harness's retry bound (entity.retry).
type Policy struct {
	Max     int           // runs after the first one of a version
	Backoff time.Duration // before the first retry, doubled before each next
}

// Input is what the rule is decided on.
type Input struct {
	Version string
	Record  receipts.HarnessRecord
	// Active is set when a run of the scope is active or pending (for
	// Jira: the item's poll lock blocks it).
	Active bool
	Now    time.Time // the tracker's clock
	Policy Policy
}

// Decision is the rule's outcome.
type Decision struct {
	State State
	// Attempt is which run of the version a Due dispatch is (1 for the
	// first, 2 for the first retry, ...); for GiveUp the runs made.
	Attempt int
	// NotBefore is when a Backoff ends.
	NotBefore time.Time
	// Reason says why, for logs and quarantine records.
	Reason string
}

// Decide applies the rule: a version a success receipt covers is
// Handled; a run active or pending makes it Active; a version whose
// runs all ended without a receipt is retried with exponential backoff
// (Policy.Backoff, doubled after each run), at most Policy.Max times,
// then given up on (GiveUp, then Quarantined); any other version is Due.
// An unreadable record decides nothing (Unreadable).
// A try's time in the future (trackerclock.Ahead) is not believed: no backoff.
func Decide(in Input) Decision {
	rec := in.Record
	switch {
	case rec.Unreadable != nil:
		return Decision{State: Unreadable, Reason: "the harness's record in the receipts cannot be read; no scheduled run until it is replaced"}
	case rec.Success != nil && rec.Success.Version == in.Version:
		return Decision{State: Handled, Reason: "a successful run (" + rec.Success.Run + ") handled version " + in.Version}
	case in.Active:
		return Decision{State: Active, Reason: "a run of the scope is active or pending"}
	}
	t := rec.Tries
	if t == nil || t.Version != in.Version {
		return Decision{State: Due, Attempt: 1, Reason: "no successful run covers version " + in.Version}
	}
	if t.Quarantined {
		return Decision{State: Quarantined, Attempt: t.Count, Reason: "version " + in.Version + " was quarantined"}
	}
	if t.Count > in.Policy.Max {
		return Decision{State: GiveUp, Attempt: t.Count,
			Reason: fmt.Sprintf("%d runs of version %s ended without success (entity.retry.max %d)", t.Count, in.Version, in.Policy.Max)}
	}
	if trackerclock.Ahead(t.At, in.Now) {
		// A time no poller wrote (trackerclock.Ahead) would hold the retry
		// back until it came; the count still bounds the runs.
		return Decision{State: Due, Attempt: t.Count + 1,
			Reason: fmt.Sprintf("retry %d of %d: run %d of version %s ended without success, its time (%s) lies in the future: no backoff",
				t.Count, in.Policy.Max, t.Count, in.Version, t.At.UTC().Format(time.RFC3339))}
	}
	next := t.At.Add(BackoffAfter(in.Policy.Backoff, t.Count))
	if in.Now.Before(next) {
		return Decision{State: Backoff, Attempt: t.Count + 1, NotBefore: next,
			Reason: fmt.Sprintf("run %d of version %s ended without success; retry %d waits until %s", t.Count, in.Version, t.Count, next.UTC().Format(time.RFC3339))}
	}
	return Decision{State: Due, Attempt: t.Count + 1,
		Reason: fmt.Sprintf("retry %d of %d: run %d of version %s ended without success", t.Count, in.Policy.Max, t.Count, in.Version)}
}

// maxBackoff caps the doubled backoff.
const maxBackoff = 7 * 24 * time.Hour

// BackoffAfter is the wait after the n-th run of a version (n >= 1):
// base, doubled for each run after the first, at most a week.
func BackoffAfter(base time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// Exposed is the receipt a harness's trigger sees as entity.receipt: the
// last successful run of rec (its version, end time, run, outcome and the
// runs it took), or nil when none succeeded.
func Exposed(rec receipts.HarnessRecord) *entity.Receipt {
	s := rec.Success
	if s == nil {
		return nil
	}
	return &entity.Receipt{Version: s.Version, At: s.At, Run: s.Run, Outcome: s.Outcome, Attempts: max(s.Attempts, 1)}
}
