// Package receipts is scheduled discovery's receipts document
// (ARCHITECTURE.md, "Receipts and scheduled discovery"): per harness, the
// last successful run on an entity version and the tries of a version not
// handled yet; what cannot be read is kept as it is. It does no I/O.
package receipts

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jirakey"
)

// Handled-state evidence of entity-source harnesses (ARCHITECTURE.md,
// "Receipts"): one issue property per target repo,
// fullsend.poll.{owner}.{repo}.receipts, read inline by the discovery
// search beside the lock and lastCheck. It maps a harness name to its
// record on the item: the last successful run (written by that run's
// `fullsend run` at teardown, never by anyone else) and the runs started
// for a version not yet handled (written by the poller that dispatches
// them, while it holds the item's lock).

// Key returns the receipts property key for a target repo
// `owner/repo`: fullsend.poll.{owner}.{repo}.receipts.
func Key(repo string) string {
	return jirakey.PollProperty(repo, "receipts")
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
	// Unreadable is the record as found when it could not be read
	// (Parse), nil otherwise: it is written back as it is (no
	// writer erases what it cannot read), only its harness's next success
	// replaces it, and no scheduled run of its harness is decided on it
	// (reconcile.Unreadable): what it said of tries and quarantine is
	// unknown, and reading it as none would widen the retries.
	Unreadable json.RawMessage `json:"-"`
}

// unreadableAll is the key under which Parse keeps a value that
// is not a receipts object at all (no harness has an empty name).
const unreadableAll = ""

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
	// the quarantine property, quarantine.Key): no further run for it.
	Quarantined bool `json:"quarantined,omitempty"`
}

// MaxHarnesses bounds the harnesses a receipts value keeps: a
// record of a harness no longer configured is dropped first when more
// would be written (Prune).
const MaxHarnesses = 64

// Parse decodes a receipts value, keeping what can be read. A
// missing value (nil or empty) is no record. A harness's record that
// cannot be read (not an object, wrong types, a receipt without version
// or of a failure, tries without version or count) is kept as it is
// (HarnessRecord.Unreadable) beside the others, and a value that is not
// an object at all is kept whole (Unreadable): the error then says what
// could not be read (callers log it and use the receipts returned). A
// record under an empty name (no harness has one) is dropped.
func Parse(raw []byte) (Receipts, error) {
	if len(raw) == 0 {
		return Receipts{}, nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return Receipts{unreadableAll: {Unreadable: json.RawMessage(raw)}},
			fmt.Errorf("receipts: not a receipts object (kept as it is, no scheduled run decided on it): %v", err)
	}
	r := make(Receipts, len(doc))
	var bad []string
	for h, v := range doc {
		if h == unreadableAll {
			continue // no harness: the key is the whole value's when it cannot be read
		}
		rec, err := parseRecord(v)
		if err != nil {
			rec = HarnessRecord{Unreadable: v}
			bad = append(bad, fmt.Sprintf("%s: %v", h, err))
		}
		r[h] = rec
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return r, fmt.Errorf("receipts: unreadable records kept as they are, no scheduled run decided on them: %s", strings.Join(bad, "; "))
	}
	return r, nil
}

// parseRecord decodes and checks one harness's record.
func parseRecord(raw json.RawMessage) (HarnessRecord, error) {
	var rec HarnessRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return HarnessRecord{}, fmt.Errorf("not a record: %v", err)
	}
	if s := rec.Success; s != nil && (s.Version == "" || s.Outcome != OutcomeSucceeded) {
		return HarnessRecord{}, fmt.Errorf("a receipt needs a version and outcome %q", OutcomeSucceeded)
	}
	if t := rec.Tries; t != nil && (t.Version == "" || t.Count < 1) {
		return HarnessRecord{}, errors.New("tries need a version and a count of at least 1")
	}
	return rec, nil
}

// Unreadable reports whether the value was not a receipts object at all
// (Parse): nothing is written over it, since every harness's
// record in it is unknown.
func (r Receipts) Unreadable() bool {
	_, ok := r[unreadableAll]
	return ok
}

// Of is harness's record: an unreadable one (HarnessRecord.Unreadable)
// when the whole value is (Receipts.Unreadable).
func (r Receipts) Of(harness string) HarnessRecord {
	if all, ok := r[unreadableAll]; ok {
		return all
	}
	return r[harness]
}

// Marshal encodes the value with UTC millisecond times; unreadable
// records are written as they were read, and a value that was not a
// receipts object at all is written back whole.
func (r Receipts) Marshal() []byte {
	if all, ok := r[unreadableAll]; ok {
		return slices.Clone(all.Unreadable)
	}
	out := make(map[string]json.RawMessage, len(r))
	for h, rec := range r {
		if rec.Unreadable != nil {
			out[h] = rec.Unreadable
			continue
		}
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
		out[h], _ = json.Marshal(rec)
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
//
// An unreadable record (HarnessRecord.Unreadable) is left as it is and 0
// returned: counting from nothing would widen its harness's retries.
func (r Receipts) Tried(harness, version, lock string, now time.Time) int {
	rec := r[harness]
	if rec.Unreadable != nil {
		return 0
	}
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
	if rec.Unreadable != nil || rec.Tries == nil || rec.Tries.Version != version {
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
// and the tries cleared. It replaces an unreadable record of harness.
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
// than MaxHarnesses.
func (r Receipts) Prune(keep func(harness string) bool) {
	if len(r) <= MaxHarnesses {
		return
	}
	for h := range r {
		if !keep(h) {
			delete(r, h)
		}
	}
}

// KeyOf returns the receipts property key beside a lock property
// key (both built from one target repo); ok is false when lockKey is not
// a lock key.
func KeyOf(lockKey string) (key string, ok bool) {
	ns, ok := strings.CutSuffix(lockKey, ".lock")
	if !ok || !strings.HasPrefix(ns, jirakey.PollPrefix) {
		return "", false
	}
	return ns + ".receipts", true
}
