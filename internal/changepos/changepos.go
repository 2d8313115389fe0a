// Package changepos is the position of a change in a work item's history
// (its time on the tracker's clock, then the platform's id of it) and the
// text of the idempotency key that names it: the one vocabulary the
// webhook paths, the pollers, the runner and the newest-pending rule
// share. It does no I/O.
package changepos

import (
	"cmp"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// Pos is a position in a work item's history: the time of a change
// on the tracker's clock and, to tell apart changes made in the same
// instant, the platform's id of the change (a comment, note, label event
// or review id; 0 for a change without one, such as an opening). Some
// platforms stamp changes at one-second resolution (GitHub), so two
// comments of one second share their time and differ only by id.
//
// Positions are ordered by time, then id (Compare); a position with id 0
// comes before every position with an id at the same time, so a
// checkpoint written as a bare time (older documents) covers none of the
// changes of that instant that carry an id.
type Pos struct {
	At time.Time
	ID int64
}

// At is the position of a change without an id at t.
func At(t time.Time) Pos { return Pos{At: t} }

// Compare orders p and q: by time at millisecond precision (the precision
// every key and checkpoint is written with), then by id.
func (p Pos) Compare(q Pos) int {
	if c := cmp.Compare(p.At.UnixMilli(), q.At.UnixMilli()); c != 0 {
		return c
	}
	return cmp.Compare(p.ID, q.ID)
}

// After reports whether p is after q.
func (p Pos) After(q Pos) bool { return p.Compare(q) > 0 }

// Prev is the last position before p: every change at or after p is
// after it, every change before p is not.
func (p Pos) Prev() Pos {
	if p.ID > 0 {
		return Pos{At: p.At, ID: p.ID - 1}
	}
	return Pos{At: p.At.Add(-time.Millisecond), ID: math.MaxInt64}
}

// IsZero reports whether p is the zero position (before every change).
func (p Pos) IsZero() bool { return p.At.IsZero() && p.ID == 0 }

// String is the ID of p.
func (p Pos) String() string { return ID(p) }

// ID identifies the change at p: its time in Unix milliseconds
// and, when it has one, "." and its platform id ("1777626000123.4021").
// Every poller and the webhook path detect the same position for the same
// change.
func ID(p Pos) string {
	s := strconv.FormatInt(p.At.UnixMilli(), 10)
	if p.ID != 0 {
		s += "." + strconv.FormatInt(p.ID, 10)
	}
	return s
}

// ParseID reads a ID back; false when s names no change
// position (for example a scheduled run's entity version).
func ParseID(s string) (Pos, bool) {
	ms, id, hasID := strings.Cut(s, ".")
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || ms == "" || ms[0] == '+' {
		return Pos{}, false
	}
	p := Pos{At: time.UnixMilli(n).UTC()}
	if hasID {
		i, err := strconv.ParseInt(id, 10, 64)
		if err != nil || i <= 0 || id[0] == '+' {
			return Pos{}, false
		}
		p.ID = i
	}
	return p, true
}

// OfKey is the change position an idempotency key names (the ID
// after the scope key's "@"); false for a key without one (a scheduled
// run's, keyed by an entity version) and for text that is no key.
func OfKey(key string) (Pos, bool) {
	_, suffix, ok := strings.Cut(key, "@")
	if !ok {
		return Pos{}, false
	}
	return ParseID(suffix)
}

// LastComplete is the newest change time a cycle may take as complete at
// now (the tracker's clock as this host estimates it): no change stamped
// at or before it is still to come. A platform that stamps changes at
// resolution (GitHub: the second) gives every change made during the
// instant that holds its current time that same stamp, so the changes
// stamped t are all made only once its clock has passed t + resolution,
// and this host's estimate of that clock may be ahead by ClockError. A
// change stamped after LastComplete is left for a later cycle: a cycle
// that took its instant as handled would skip a change made later in it.
func LastComplete(now time.Time, resolution time.Duration) time.Time {
	return now.Add(-trackerclock.ClockError - resolution)
}

// Key is the key of one harness's run for the change at p:
// the run's scope key, "@" and ID(p). KeyAt(k, t) is
// Key(k, At(t)).
func Key(scopeKey string, p Pos) string {
	return scopeKey + "@" + ID(p)
}

// KeyAt is the key of one harness's run for one change: the
// run's scope key (which names the harness, the repository and the work
// item), "@" and the ID of the newest change dispatched. A run
// carries it (gha-dispatch: inside the work_item input; gitlab-pipeline:
// the FULLSEND_IDEMPOTENCY_KEY variable) so that the platform records it.
func KeyAt(scopeKey string, change time.Time) string {
	return Key(scopeKey, At(change))
}
