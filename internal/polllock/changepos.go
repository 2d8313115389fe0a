package polllock

import (
	"cmp"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// ChangePos is a position in a work item's history: the time of a change
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
type ChangePos struct {
	At time.Time
	ID int64
}

// PosAt is the position of a change without an id at t.
func PosAt(t time.Time) ChangePos { return ChangePos{At: t} }

// Compare orders p and q: by time at millisecond precision (the precision
// every key and checkpoint is written with), then by id.
func (p ChangePos) Compare(q ChangePos) int {
	if c := cmp.Compare(p.At.UnixMilli(), q.At.UnixMilli()); c != 0 {
		return c
	}
	return cmp.Compare(p.ID, q.ID)
}

// After reports whether p is after q.
func (p ChangePos) After(q ChangePos) bool { return p.Compare(q) > 0 }

// Prev is the last position before p: every change at or after p is
// after it, every change before p is not.
func (p ChangePos) Prev() ChangePos {
	if p.ID > 0 {
		return ChangePos{At: p.At, ID: p.ID - 1}
	}
	return ChangePos{At: p.At.Add(-time.Millisecond), ID: math.MaxInt64}
}

// IsZero reports whether p is the zero position (before every change).
func (p ChangePos) IsZero() bool { return p.At.IsZero() && p.ID == 0 }

// String is the ChangeID of p.
func (p ChangePos) String() string { return ChangeIDAt(p) }

// ChangeIDAt identifies the change at p: its time in Unix milliseconds
// and, when it has one, "." and its platform id ("1777626000123.4021").
// Every poller and the webhook path detect the same position for the same
// change.
func ChangeIDAt(p ChangePos) string {
	s := strconv.FormatInt(p.At.UnixMilli(), 10)
	if p.ID != 0 {
		s += "." + strconv.FormatInt(p.ID, 10)
	}
	return s
}

// ParseChangeID reads a ChangeIDAt back; false when s names no change
// position (for example a scheduled run's entity version).
func ParseChangeID(s string) (ChangePos, bool) {
	ms, id, hasID := strings.Cut(s, ".")
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || ms == "" || ms[0] == '+' {
		return ChangePos{}, false
	}
	p := ChangePos{At: time.UnixMilli(n).UTC()}
	if hasID {
		i, err := strconv.ParseInt(id, 10, 64)
		if err != nil || i <= 0 || id[0] == '+' {
			return ChangePos{}, false
		}
		p.ID = i
	}
	return p, true
}

// KeyPos is the change position an idempotency key names (the ChangeID
// after the scope key's "@"); false for a key without one (a scheduled
// run's, keyed by an entity version) and for text that is no key.
func KeyPos(key string) (ChangePos, bool) {
	_, suffix, ok := strings.Cut(key, "@")
	if !ok {
		return ChangePos{}, false
	}
	return ParseChangeID(suffix)
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

// IdempotencyKeyAt is the key of one harness's run for the change at p:
// the run's scope key, "@" and ChangeIDAt(p). IdempotencyKey(k, t) is
// IdempotencyKeyAt(k, PosAt(t)).
func IdempotencyKeyAt(scopeKey string, p ChangePos) string {
	return scopeKey + "@" + ChangeIDAt(p)
}
