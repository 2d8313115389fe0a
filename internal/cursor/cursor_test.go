package cursor

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCursorKey(t *testing.T) {
	if got := Key("acme/platform"); got != "fullsend.poll.acme.platform.cursor" {
		t.Fatalf("CursorKey = %s", got)
	}
	if got := Key("group/sub/repo"); got != "fullsend.poll.group.sub.repo.cursor" {
		t.Fatalf("CursorKey nested = %s", got)
	}
}

func TestParseCursor(t *testing.T) {
	cases := []struct {
		name, raw, err string
	}{
		{"valid", `{"at":"2026-05-01T10:00:00.123456Z","by":"p1","ts":"2026-05-01T10:00:01Z","pollers":{"p1":"2026-05-01T10:00:01Z"}}`, ""},
		{"no pollers", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z"}`, ""},
		{"missing at", `{"by":"p1","ts":"2026-05-01T10:00:01Z"}`, "missing at"},
		{"missing by", `{"at":"2026-05-01T10:00:00Z","ts":"2026-05-01T10:00:01Z"}`, "missing by"},
		{"missing ts", `{"at":"2026-05-01T10:00:00Z","by":"p1"}`, "missing ts"},
		{"unknown field", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","x":1}`, "unknown field"},
		{"bad time", `{"at":"yesterday","by":"p1","ts":"2026-05-01T10:00:01Z"}`, "not a cursor object"},
		{"trailing data", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z"} {}`, "trailing data"},
		{"empty poller id", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","pollers":{"":"2026-05-01T10:00:01Z"}}`, "poller entry"},
		{"zero poller time", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","pollers":{"p2":"0001-01-01T00:00:00Z"}}`, "poller entry"},
		{"held", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","held":{"PROJ-1":"2026-05-01T09:00:00Z"}}`, ""},
		{"held bad key", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","held":{"proj 1":"2026-05-01T09:00:00Z"}}`, "held entry"},
		{"held no time", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","held":{"PROJ-1":"0001-01-01T00:00:00Z"}}`, "held entry"},
		{"plateau position", `{"at":"2026-05-01T10:00:00.123Z","at_id":10042,"by":"p1","ts":"2026-05-01T10:00:01Z"}`, ""},
		{"negative at_id", `{"at":"2026-05-01T10:00:00Z","at_id":-1,"by":"p1","ts":"2026-05-01T10:00:01Z"}`, "at_id"},
		{"fractional at_id", `{"at":"2026-05-01T10:00:00Z","at_id":1.5,"by":"p1","ts":"2026-05-01T10:00:01Z"}`, "not a cursor object"},
		{"not an object", `"2026-05-01T10:00:00Z"`, "not a cursor object"},
		{"null", `null`, "missing at"},
		{"pace", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","pace":{"rate":2.5,"at":"2026-05-01T10:00:01Z"}}`, ""},
		{"pace zero rate", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","pace":{"rate":0,"at":"2026-05-01T10:00:01Z"}}`, "pace"},
		{"pace negative rate", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","pace":{"rate":-1,"at":"2026-05-01T10:00:01Z"}}`, "pace"},
		{"pace no time", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","pace":{"rate":2}}`, "pace"},
		{"pace unknown field", `{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","pace":{"rate":2,"at":"2026-05-01T10:00:01Z","x":1}}`, "unknown field"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.raw))
			if tc.err == "" {
				if err != nil {
					t.Fatalf("ParseCursor: %v", err)
				}
				back, err := Parse(c.Marshal())
				if err != nil || back.Pos().Compare(c.Pos()) != 0 || back.By != c.By || len(back.Held) != len(c.Held) || !samePace(back.Pace, c.Pace) {
					t.Fatalf("round trip: %+v, %v", back, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}

func TestCursorPollers(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	ttl := 10 * time.Minute
	c := Cursor{Pollers: map[string]time.Time{
		"old":    now.Add(-11 * time.Minute),
		"recent": now.Add(-9 * time.Minute),
		"future": now.Add(20 * time.Minute),
		"ahead":  now.Add(time.Minute),
	}}
	if got := c.Listed(now, ttl); !slices.Equal(got, []string{"ahead", "recent"}) {
		t.Fatalf("Listed = %v, want [ahead recent]", got)
	}
	next := c.WithPoller("me", now, ttl)
	if len(next.Pollers) != 3 || !next.Pollers["me"].Equal(now) || next.Pollers["recent"].IsZero() {
		t.Fatalf("WithPoller = %v, want me, ahead and recent", next.Pollers)
	}
	if len(c.Pollers) != 4 {
		t.Fatal("WithPoller changed its receiver")
	}
	if lag := (Cursor{At: now.Add(-time.Minute)}).Lag(now); lag != time.Minute {
		t.Fatalf("Lag = %v", lag)
	}
	if (Cursor{}).Lag(now) != 0 {
		t.Fatal("Lag of a zero cursor")
	}
}

// FuzzParseCursor: the cursor comes from Jira, written by any poller (or
// anyone with access to the property): parsing never panics, and what it
// accepts round-trips.
func FuzzParseCursor(f *testing.F) {
	for _, s := range []string{
		`{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","pollers":{"p1":"2026-05-01T10:00:01Z"}}`,
		`{"at":"2026-05-01T10:00:00.123Z","at_id":10042,"by":"p1","ts":"2026-05-01T10:00:01Z"}`,
		`{"at":"2026-05-01T10:00:00Z"}`, `[]`, `{}`, ``, `{"at":1}`, `{"at_id":-5}`,
		`{"at":"2026-05-01T10:00:00Z","by":"p1","ts":"2026-05-01T10:00:01Z","pace":{"rate":2.5,"at":"2026-05-01T10:00:01Z"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := Parse(raw)
		if err != nil {
			return
		}
		back, err := Parse(c.Marshal())
		if err != nil {
			t.Fatalf("accepted %q but not its re-encoding: %v", raw, err)
		}
		if back.Pos().Compare(c.Pos()) != 0 || back.By != c.By || len(back.Pollers) != len(c.Pollers) || len(back.Held) != len(c.Held) || !samePace(back.Pace, c.Pace) {
			t.Fatalf("round trip of %q: %+v vs %+v", raw, back, c)
		}
	})
}

// samePace compares two paces (nil: none).
func samePace(a, b *Pace) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Rate == b.Rate && a.At.Equal(b.At)
}

// TestCursorPosition: a document written before the id part existed is
// the position (at, 0), before every issue updated at at; with an id, the
// cursor has passed the issues at at up to that id and no further.
func TestCursorPosition(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 123e6, time.UTC)
	old, err := Parse([]byte(`{"at":"2026-05-01T10:00:00.123Z","by":"p1","ts":"2026-05-01T10:00:01Z"}`))
	if err != nil || old.Pos() != (Pos{At: at}) {
		t.Fatalf("old document: %+v, %v", old.Pos(), err)
	}
	if string(old.Marshal()) != `{"at":"2026-05-01T10:00:00.123Z","by":"p1","ts":"2026-05-01T10:00:01Z"}` {
		t.Fatalf("a position without an id is not written as before: %s", old.Marshal())
	}
	plateau := Cursor{At: at, AtID: 10042}
	cases := []struct {
		name    string
		c       Cursor
		updated time.Time
		id      int64
		passed  bool
	}{
		{"old: earlier update", old, at.Add(-time.Millisecond), 99999, true},
		{"old: same instant", old, at, 1, false},
		{"plateau: lower id", plateau, at, 10041, true},
		{"plateau: its own id", plateau, at, 10042, true},
		{"plateau: higher id", plateau, at, 10043, false},
		{"plateau: later update", plateau, at.Add(time.Millisecond), 1, false},
		{"plateau: earlier update", plateau, at.Add(-time.Millisecond), 99999, true},
	}
	for _, tc := range cases {
		if got := tc.c.Passed(tc.updated, tc.id); got != tc.passed {
			t.Errorf("%s: Passed = %v, want %v", tc.name, got, tc.passed)
		}
	}
}

func TestParseCursorTooManyHeld(t *testing.T) {
	c := Cursor{At: time.Now(), By: "p", TS: time.Now(), Held: map[string]time.Time{}}
	for i := range MaxHeld + 1 {
		c.Held["PROJ-"+strconv.Itoa(i+1)] = time.Now()
	}
	if _, err := Parse(c.Marshal()); err == nil || !strings.Contains(err.Error(), "held issues") {
		t.Fatalf("%d held: %v", len(c.Held), err)
	}
}
