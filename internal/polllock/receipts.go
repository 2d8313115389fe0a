package polllock

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Handled-state evidence of entity-source harnesses (ARCHITECTURE.md,
// "Receipts"): one issue property per target repo,
// fullsend.poll.{owner}.{repo}.receipts, read inline by the discovery
// search beside the lock and lastCheck. It maps a harness name to its
// record on the item: the last successful run (written by that run's
// `fullsend run` at teardown, never by anyone else) and the runs started
// for a version not yet handled (written by the poller that dispatches
// them, while it holds the item's lock).

// ReceiptsKey returns the receipts property key for a target repo
// `owner/repo`: fullsend.poll.{owner}.{repo}.receipts.
func ReceiptsKey(repo string) string {
	lock, _ := Keys(repo)
	return strings.TrimSuffix(lock, ".lock") + ".receipts"
}

// OutcomeSucceeded is the outcome of every receipt: only a run that
// succeeded writes one.
const OutcomeSucceeded = "succeeded"

// Receipts is the value of the receipts property, by harness name.
type Receipts map[string]HarnessRecord

// HarnessRecord is one harness's record on an item.
type HarnessRecord struct {
	// Success is the last successful run; nil when none succeeded yet.
	Success *Receipt `json:"success,omitempty"`
	// Tries counts the runs dispatched for a version Success does not
	// cover; nil when none was.
	Tries *Tries `json:"tries,omitempty"`
}

// Receipt records a successful run.
type Receipt struct {
	Version  string    `json:"version"`  // the entity version the run started from
	At       time.Time `json:"at"`       // when it ended (the tracker's clock)
	Run      string    `json:"run"`      // the run's reference (driver/id)
	Outcome  string    `json:"outcome"`  // OutcomeSucceeded
	Attempts int       `json:"attempts"` // the runs it took for this version, this one included
}

// Tries counts the runs started for one version.
type Tries struct {
	Version string    `json:"version"`
	Count   int       `json:"count"` // runs dispatched for Version
	At      time.Time `json:"at"`    // the last dispatch (the tracker's clock)
	Lock    string    `json:"lock"`  // the lock id the last run was dispatched under
	// Quarantined is set once the version was given up on (recorded in
	// the quarantine property, QuarantineKey): no further run for it.
	Quarantined bool `json:"quarantined,omitempty"`
}

// MaxReceiptHarnesses bounds the harnesses a receipts value keeps: a
// record of a harness no longer configured is dropped first when more
// would be written (Prune).
const MaxReceiptHarnesses = 64

// ParseReceipts decodes a receipts value. A missing value (nil or empty)
// is no record; a corrupt one is an error (callers log it and act as if
// there were no record: a run may then be repeated, never lost).
func ParseReceipts(raw []byte) (Receipts, error) {
	if len(raw) == 0 {
		return Receipts{}, nil
	}
	var r Receipts
	if err := json.Unmarshal(raw, &r); err != nil {
		return Receipts{}, fmt.Errorf("receipts: not a receipts object: %v", err)
	}
	if r == nil {
		r = Receipts{}
	}
	for h, rec := range r {
		if s := rec.Success; s != nil && (s.Version == "" || s.Outcome != OutcomeSucceeded) {
			return Receipts{}, fmt.Errorf("receipts: %s: a receipt needs a version and outcome %q", h, OutcomeSucceeded)
		}
		if t := rec.Tries; t != nil && (t.Version == "" || t.Count < 1) {
			return Receipts{}, fmt.Errorf("receipts: %s: tries need a version and a count of at least 1", h)
		}
	}
	return r, nil
}

// Marshal encodes the value with UTC millisecond times.
func (r Receipts) Marshal() []byte {
	out := make(Receipts, len(r))
	for h, rec := range r {
		if s := rec.Success; s != nil {
			c := *s
			c.At = c.At.UTC().Truncate(time.Millisecond)
			rec.Success = &c
		}
		if t := rec.Tries; t != nil {
			c := *t
			c.At = c.At.UTC().Truncate(time.Millisecond)
			rec.Tries = &c
		}
		out[h] = rec
	}
	b, _ := json.Marshal(out)
	return b
}

// Covers reports whether harness's last success started from version.
func (r Receipts) Covers(harness, version string) bool {
	s := r[harness].Success
	return s != nil && s.Version == version
}

// Tried records one more run of harness dispatched for version under
// lock id at now and returns the count for that version: tries of
// another version start again at 1.
func (r Receipts) Tried(harness, version, lock string, now time.Time) int {
	rec := r[harness]
	t := Tries{Version: version}
	if rec.Tries != nil && rec.Tries.Version == version {
		t = *rec.Tries
	}
	t.Count++
	t.At, t.Lock = now.UTC().Truncate(time.Millisecond), lock
	rec.Tries = &t
	r[harness] = rec
	return t.Count
}

// Quarantined marks harness's tries of version as given up on; it
// reports false when the record holds no tries of that version.
func (r Receipts) Quarantined(harness, version string) bool {
	rec := r[harness]
	if rec.Tries == nil || rec.Tries.Version != version {
		return false
	}
	t := *rec.Tries
	t.Quarantined = true
	rec.Tries = &t
	r[harness] = rec
	return true
}

// Succeeded records the success of harness's run on version: the
// receipt, with the runs it took (the tries of that version, at least 1),
// and the tries cleared.
func (r Receipts) Succeeded(harness, version, run string, at time.Time) Receipt {
	rec := r[harness]
	n := 1
	if rec.Tries != nil && rec.Tries.Version == version {
		n = max(rec.Tries.Count, 1)
	}
	s := Receipt{Version: version, At: at.UTC().Truncate(time.Millisecond), Run: run, Outcome: OutcomeSucceeded, Attempts: n}
	r[harness] = HarnessRecord{Success: &s}
	return s
}

// Prune drops the records of harnesses keep rejects once r holds more
// than MaxReceiptHarnesses.
func (r Receipts) Prune(keep func(harness string) bool) {
	if len(r) <= MaxReceiptHarnesses {
		return
	}
	for h := range r {
		if !keep(h) {
			delete(r, h)
		}
	}
}

// ReceiptsKeyOf returns the receipts property key beside a lock property
// key (both built from one target repo); ok is false when lockKey is not
// a lock key.
func ReceiptsKeyOf(lockKey string) (key string, ok bool) {
	ns, ok := strings.CutSuffix(lockKey, ".lock")
	if !ok || !strings.HasPrefix(ns, "fullsend.poll.") {
		return "", false
	}
	return ns + ".receipts", true
}
