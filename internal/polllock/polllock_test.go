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

func TestParseLastCheck(t *testing.T) {
	lc, err := ParseLastCheck([]byte(`"2026-01-01T00:00:00Z"`))
	if err != nil || lc.TS.Year() != 2026 {
		t.Fatalf("bare string: %+v %v", lc, err)
	}
	lc, err = ParseLastCheck([]byte(`{"ts":"2026-01-01T00:00:00Z","harness":{"triage":"2026-01-02T00:00:00Z"}}`))
	if err != nil || lc.Harness["triage"].Day() != 2 {
		t.Fatalf("object: %+v %v", lc, err)
	}
	for _, raw := range []string{`"yesterday"`, `{}`, `12`, `{"ts":5}`} {
		if _, err := ParseLastCheck([]byte(raw)); err == nil {
			t.Errorf("ParseLastCheck(%s) accepted", raw)
		}
	}
}
