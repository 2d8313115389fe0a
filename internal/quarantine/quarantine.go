// Package quarantine is the quarantine document of a work item: the
// changes pollers gave up on, and the failed dispatch attempts per
// harness that may lead there (docs/polling.md). It does no I/O.
package quarantine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jirakey"
)

// MaxEntries bounds the entries kept in a quarantine value; the
// oldest are dropped first (every entry is also logged when written).
const MaxEntries = 20

// Key returns the property key of the quarantine record for a
// target repo `owner/repo`: fullsend.poll.{owner}.{repo}.quarantine.
func Key(repo string) string {
	return jirakey.PollProperty(repo, "quarantine")
}

// Quarantine is the value of the quarantine property: the changes of a
// work item that pollers gave up on, and the failed dispatch attempts per
// harness that may lead there (ARCHITECTURE.md, docs/polling.md).
type Quarantine struct {
	// Attempts counts, per harness, the consecutive cycles whose dispatch
	// of the same change failed.
	Attempts map[string]Attempt `json:"attempts,omitempty"`
	// Entries are the quarantined changes, oldest first.
	Entries []Entry `json:"entries"`
}

// Attempt is the failure count of one harness's dispatch of one change.
type Attempt struct {
	Change string    `json:"change"`
	Count  int       `json:"count"`
	TS     time.Time `json:"ts"`
	Reason string    `json:"reason"`
}

// Entry is one quarantined change.
type Entry struct {
	Change   string    `json:"change"`            // the change's id, e.g. comment/10042
	Harness  string    `json:"harness,omitempty"` // empty: no harness saw it (invalid event)
	At       time.Time `json:"at"`                // when the change happened
	TS       time.Time `json:"ts"`                // when it was quarantined
	Reason   string    `json:"reason"`
	Attempts int       `json:"attempts,omitempty"`
}

// Parse decodes a quarantine value; a corrupt value is an error
// (callers start a fresh record and log it).
func Parse(raw []byte) (Quarantine, error) {
	var q Quarantine
	if err := json.Unmarshal(raw, &q); err != nil {
		return Quarantine{}, fmt.Errorf("quarantine: not a quarantine object: %v", err)
	}
	return q, nil
}

// Add appends e, keeping at most MaxEntries (the newest), and
// clears the harness's attempt count.
func (q *Quarantine) Add(e Entry) {
	q.Entries = append(q.Entries, e)
	if n := len(q.Entries) - MaxEntries; n > 0 {
		q.Entries = append([]Entry(nil), q.Entries[n:]...)
	}
	if e.Harness != "" {
		delete(q.Attempts, e.Harness)
	}
}

// Fail records one more failed attempt of harness at change and returns
// the count: consecutive failures of the same change add up, a different
// change starts again at 1.
func (q *Quarantine) Fail(harness, change, reason string, now time.Time) int {
	if q.Attempts == nil {
		q.Attempts = map[string]Attempt{}
	}
	a := q.Attempts[harness]
	if a.Change != change {
		a = Attempt{Change: change}
	}
	a.Count++
	a.TS, a.Reason = now.UTC().Truncate(time.Millisecond), reason
	q.Attempts[harness] = a
	return a.Count
}

// Marshal encodes the value with a non-null entries array.
func (q Quarantine) Marshal() []byte {
	if q.Entries == nil {
		q.Entries = []Entry{}
	}
	b, _ := json.Marshal(q)
	return b
}
