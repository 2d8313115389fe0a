// Package cursor is the discovery cursor document, one per target
// repository and shared by its pollers (ARCHITECTURE.md, "The poll-lock
// protocol", step 6): the position up to which every candidate was
// handled, the issues held back, the pollers seen and the pace learned
// from 429s. It does no I/O.
package cursor

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jirakey"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// The discovery cursor is one document per target repository, shared by
// every poller of that repository and stored in Jira itself (a user or
// project entity property, see docs/polling.md, "Discovery cursor").
// (At, AtID) is a position in the order of the tracker's "updated" clock,
// then issue id: every change to a candidate issue at or before it (its
// update before At, or at At with an id up to AtID) was handled
// (dispatched, or given up on for good) when the cursor was written, so
// discovery only asks for the issues after it. AtID 0 (absent, as in
// documents written before it existed) is before every issue updated at
// At. The id lets the cursor pass a plateau: more issues updated in one
// instant (a bulk edit, an import) than a search reads. Pollers lists the
// pollers seen recently (id → last write), which pollers use to share
// work without colliding.

// Cursor is the value of the cursor property.
type Cursor struct {
	At      time.Time            `json:"at"`                // discovery position (tracker clock), RFC 3339 UTC
	AtID    int64                `json:"at_id,omitempty"`   // the last issue id handled at At (0: none)
	By      string               `json:"by"`                // the poller that wrote it
	TS      time.Time            `json:"ts"`                // when it was written (the writer's clock)
	Pollers map[string]time.Time `json:"pollers,omitempty"` // poller id → last seen
	// Held lists the candidates updated before At that were not handled
	// yet (issue key → its update then): discovery reads them with the
	// issues updated since At, so that a change waiting for a long run to
	// end does not hold the cursor (and every search) back. At most
	// MaxHeld.
	Held map[string]time.Time `json:"held,omitempty"`
	// Pace is the lowest request rate a poller of the site held after
	// Jira answered it 429 (its AIMD ceiling), for the pollers that read
	// the cursor to start from instead of learning it by their own 429s.
	// A hint only: absent or stale, it costs a few 429s, never a change.
	Pace *Pace `json:"pace,omitempty"`
}

// Pace is a request rate learned from 429s, in calls per second,
// and when it was held (tracker clock).
type Pace struct {
	Rate float64   `json:"rate"`
	At   time.Time `json:"at"`
}

// MaxHeld bounds Cursor.Held (a JQL key list must stay short).
const MaxHeld = 50

// Key is the property key of the discovery cursor of a target repo
// `owner/repo`: fullsend.poll.{owner}.{repo}.cursor.
func Key(repo string) string {
	return jirakey.PollProperty(repo, "cursor")
}

// Parse decodes a cursor value strictly: unknown fields, a missing
// at, by or ts, an empty poller id or trailing data are errors naming the
// problem. Callers treat a corrupt cursor as absent (full discovery).
func Parse(raw []byte) (Cursor, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c Cursor
	if err := dec.Decode(&c); err != nil {
		return Cursor{}, fmt.Errorf("poll cursor: not a cursor object: %v", err)
	}
	if dec.More() {
		return Cursor{}, fmt.Errorf("poll cursor: trailing data after the object")
	}
	switch {
	case c.At.IsZero():
		return Cursor{}, fmt.Errorf("poll cursor: missing at")
	case c.By == "":
		return Cursor{}, fmt.Errorf("poll cursor: missing by")
	case c.TS.IsZero():
		return Cursor{}, fmt.Errorf("poll cursor: missing ts")
	case c.AtID < 0:
		return Cursor{}, fmt.Errorf("poll cursor: at_id %d is negative", c.AtID)
	}
	for id, t := range c.Pollers {
		if id == "" || t.IsZero() {
			return Cursor{}, fmt.Errorf("poll cursor: poller entry %q has no id or time", id)
		}
	}
	if p := c.Pace; p != nil && (!(p.Rate > 0) || math.IsInf(p.Rate, 0) || p.At.IsZero()) {
		return Cursor{}, fmt.Errorf("poll cursor: pace wants a positive rate and a time")
	}
	if len(c.Held) > MaxHeld {
		return Cursor{}, fmt.Errorf("poll cursor: %d held issues, at most %d", len(c.Held), MaxHeld)
	}
	for key, t := range c.Held {
		if !jirakey.ValidIssue(key) || t.IsZero() {
			return Cursor{}, fmt.Errorf("poll cursor: held entry %q is not an issue key with a time", key)
		}
	}
	return c, nil
}

// Pos is a position in discovery order: an update time, then an
// issue id (0 is before every issue updated at At).
type Pos struct {
	At time.Time
	ID int64
}

// Compare orders two positions (-1, 0, 1): by time, then by id.
func (p Pos) Compare(q Pos) int {
	if c := p.At.Compare(q.At); c != 0 {
		return c
	}
	return cmp.Compare(p.ID, q.ID)
}

// Pos is the cursor's position.
func (c Cursor) Pos() Pos { return Pos{c.At, c.AtID} }

// Passed reports whether the cursor is past the issue with id updated at
// updated: the cursor claims that change handled, or lists it in Held.
func (c Cursor) Passed(updated time.Time, id int64) bool {
	return Pos{updated, id}.Compare(c.Pos()) <= 0
}

// Marshal encodes the cursor with UTC times.
func (c Cursor) Marshal() []byte {
	c.At, c.TS = c.At.UTC(), c.TS.UTC()
	c.Pollers, c.Held = utcTimes(c.Pollers), utcTimes(c.Held)
	if c.Pace != nil {
		c.Pace = &Pace{Rate: c.Pace.Rate, At: c.Pace.At.UTC()}
	}
	b, _ := json.Marshal(c)
	return b
}

// utcTimes returns m with every time in UTC (nil when empty).
func utcTimes(m map[string]time.Time) map[string]time.Time {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]time.Time, len(m))
	for k, t := range m {
		out[k] = t.UTC()
	}
	return out
}

// Listed is the pollers the document lists as seen within ttl of now
// (either way), sorted.
func (c Cursor) Listed(now time.Time, ttl time.Duration) []string {
	var out []string
	for id, t := range c.Pollers {
		if now.Sub(t) <= ttl && t.Sub(now) <= ttl {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// WithPoller returns a copy whose pollers list records self at now and
// drops entries older than ttl (or further than ttl in the future).
func (c Cursor) WithPoller(self string, now time.Time, ttl time.Duration) Cursor {
	ps := maps.Clone(c.Pollers)
	if ps == nil {
		ps = map[string]time.Time{}
	}
	maps.DeleteFunc(ps, func(_ string, t time.Time) bool { return now.Sub(t) > ttl || t.Sub(now) > ttl })
	ps[self] = now
	c.Pollers = ps
	return c
}

// Future reports whether the cursor's position lies in the future
// (Ahead): no poller proposes one past its own search, and discovery from
// it would pass every change until then. Readers treat such a cursor as
// corrupt.
func (c Cursor) Future(now time.Time) bool { return trackerclock.Ahead(c.At, now) }

// Lag is how far the cursor trails now (0 for a zero cursor).
func (c Cursor) Lag(now time.Time) time.Duration {
	if c.At.IsZero() {
		return 0
	}
	return now.Sub(c.At)
}
