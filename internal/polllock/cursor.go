package polllock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The discovery cursor is one document per target repository, shared by
// every poller of that repository and stored in Jira itself (a user or
// project entity property, see docs/polling.md, "Discovery cursor").
// At is a position on the tracker's "updated" clock: every change to a
// candidate issue updated before At was handled (dispatched, or given
// up on for good) when the cursor was written, so discovery only asks
// for issues updated since At. Pollers lists the
// pollers seen recently (id → last write), which pollers use to share
// work without colliding.

// Cursor is the value of the cursor property.
type Cursor struct {
	At      time.Time            `json:"at"`                // discovery position (tracker clock), RFC 3339 UTC
	By      string               `json:"by"`                // the poller that wrote it
	TS      time.Time            `json:"ts"`                // when it was written (the writer's clock)
	Pollers map[string]time.Time `json:"pollers,omitempty"` // poller id → last seen
	// Held lists the candidates updated before At that were not handled
	// yet (issue key → its update then): discovery reads them with the
	// issues updated since At, so that a change waiting for a long run to
	// end does not hold the cursor (and every search) back. At most
	// MaxHeld.
	Held map[string]time.Time `json:"held,omitempty"`
}

// MaxHeld bounds Cursor.Held (a JQL key list must stay short).
const MaxHeld = 50

// CursorKey is the property key of the discovery cursor of a target repo
// `owner/repo`: fullsend.poll.{owner}.{repo}.cursor.
func CursorKey(repo string) string {
	lock, _ := Keys(repo)
	return strings.TrimSuffix(lock, ".lock") + ".cursor"
}

// ParseCursor decodes a cursor value strictly: unknown fields, a missing
// at, by or ts, an empty poller id or trailing data are errors naming the
// problem. Callers treat a corrupt cursor as absent (full discovery).
func ParseCursor(raw []byte) (Cursor, error) {
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
	}
	for id, t := range c.Pollers {
		if id == "" || t.IsZero() {
			return Cursor{}, fmt.Errorf("poll cursor: poller entry %q has no id or time", id)
		}
	}
	if len(c.Held) > MaxHeld {
		return Cursor{}, fmt.Errorf("poll cursor: %d held issues, at most %d", len(c.Held), MaxHeld)
	}
	for key, t := range c.Held {
		if !ValidIssueKey(key) || t.IsZero() {
			return Cursor{}, fmt.Errorf("poll cursor: held entry %q is not an issue key with a time", key)
		}
	}
	return c, nil
}

// Marshal encodes the cursor with UTC times.
func (c Cursor) Marshal() []byte {
	c.At, c.TS = c.At.UTC(), c.TS.UTC()
	c.Pollers, c.Held = utcTimes(c.Pollers), utcTimes(c.Held)
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

// Lag is how far the cursor trails now (0 for a zero cursor).
func (c Cursor) Lag(now time.Time) time.Duration {
	if c.At.IsZero() {
		return 0
	}
	return now.Sub(c.At)
}
