package polllock

import (
	"strings"
	"testing"
	"time"
)

func TestKeys(t *testing.T) {
	l, c := Keys("acme/platform")
	if l != "fullsend.poll.acme.platform.lock" || c != "fullsend.poll.acme.platform.lastCheck" {
		t.Fatalf("Keys = %s %s", l, c)
	}
}

func TestLockRoundTripAndStale(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	l := Lock{ID: "u1", TS: now, Phase: PhasePending}
	raw := l.Marshal()
	if !strings.Contains(string(raw), `"runs":[]`) || !strings.Contains(string(raw), `"ts":"2026-05-01T10:00:00Z"`) {
		t.Fatalf("Marshal = %s", raw)
	}
	back, err := Parse(raw)
	if err != nil || back.ID != "u1" || !back.TS.Equal(now) {
		t.Fatalf("Parse = %+v %v", back, err)
	}
	cases := []struct {
		at    time.Time
		stale bool
	}{
		{now.Add(5 * time.Minute), false},
		{now.Add(16 * time.Minute), true},
		{now.Add(-16 * time.Minute), true}, // timestamp far in the future
		{now.Add(-time.Minute), false},
	}
	for _, c := range cases {
		if got := back.Stale(c.at, 15*time.Minute); got != c.stale {
			t.Errorf("Stale(%v) = %v", c.at, got)
		}
	}
}

func TestParseRejectsCorrupt(t *testing.T) {
	for _, raw := range []string{`nope`, `{}`, `{"id":"x"}`, `{"id":"x","ts":"2026-01-01T00:00:00Z","phase":"weird"}`, `[1]`, `"str"`} {
		if _, err := Parse([]byte(raw)); err == nil {
			t.Errorf("Parse(%s) accepted", raw)
		}
	}
}

func TestLockPhases(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	from := &Position{TS: now.Add(-time.Hour)}
	const ttl, stale = 2 * time.Minute, 15 * time.Minute
	cases := []struct {
		name    string
		l       Lock
		expired bool
		owed    bool
	}{
		{"pending, young", Lock{ID: "p.1", TS: now.Add(-time.Minute), Phase: PhasePending, From: from}, false, true},
		{"pending, past the ttl", Lock{ID: "p.1", TS: now.Add(-3 * time.Minute), Phase: PhasePending, From: from}, true, true},
		{"dispatched, past the ttl", Lock{ID: "p.1", TS: now.Add(-3 * time.Minute), Phase: PhaseDispatched, From: from}, true, true},
		{"running, past the ttl", Lock{ID: "p.1", TS: now.Add(-3 * time.Minute), Phase: PhaseRunning, From: from}, false, false},
		{"running, stale", Lock{ID: "p.1", TS: now.Add(-16 * time.Minute), Phase: PhaseRunning, From: from}, true, false},
		{"pending without from", Lock{ID: "p", TS: now.Add(-3 * time.Minute), Phase: PhasePending}, true, false},
		{"far in the future", Lock{ID: "p.1", TS: now.Add(16 * time.Minute), Phase: PhasePending, From: from}, true, true},
	}
	for _, c := range cases {
		if got := c.l.Expired(now, ttl, stale); got != c.expired {
			t.Errorf("%s: Expired = %v", c.name, got)
		}
		if got := c.l.Owed(); got != c.owed {
			t.Errorf("%s: Owed = %v", c.name, got)
		}
	}
	// a ttl beyond the threshold, or none, is the threshold
	l := Lock{ID: "p.1", TS: now.Add(-5 * time.Minute), Phase: PhasePending}
	if l.Expired(now, 0, stale) || l.Expired(now, time.Hour, stale) || !l.Expired(now, 0, 4*time.Minute) {
		t.Error("ttl not capped at the stale threshold")
	}
}

func TestLockIDsAndFrom(t *testing.T) {
	a, b := NewLockID("4f1c"), NewLockID("4f1c")
	if a == b || LockOwner(a) != "4f1c" || LockOwner(b) != "4f1c" {
		t.Fatalf("lock ids %q %q", a, b)
	}
	if LockOwner("poller-1") != "poller-1" {
		t.Error("an id without a suffix is its own owner")
	}
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	l := Lock{ID: a, TS: at, Phase: PhasePending, From: &Position{TS: at, Harness: map[string]time.Time{"triage": at.Add(-time.Hour)}}}
	back, err := Parse(l.Marshal())
	if err != nil || back.From == nil || !back.From.TS.Equal(at) || back.From.Pos("triage") != at.Add(-time.Hour).UTC() || back.From.Pos("audit") != at.UTC() {
		t.Fatalf("round trip = %+v %v", back, err)
	}
	if raw := (Lock{ID: a, TS: at, Phase: PhasePending}).Marshal(); strings.Contains(string(raw), "from") {
		t.Errorf("a lock without from writes one: %s", raw)
	}
}
