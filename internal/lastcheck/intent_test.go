package lastcheck

import (
	"encoding/json"
	"testing"
	"time"
)

// Intents survive a lastCheck round trip; a lastCheck without them (as
// older pollers write it) has none.
func TestLastCheckIntents(t *testing.T) {
	ts := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	in := LastCheck{TS: ts, Intents: UTCIntents(map[string]Intent{
		"triage": {Key: "k@1", Change: ts.Add(time.Second), TS: ts.Add(time.Minute + 500*time.Microsecond)},
	})}
	raw, _ := json.Marshal(in)
	back, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	got := back.Intents["triage"]
	if got.Key != "k@1" || !got.Change.Equal(ts.Add(time.Second)) || !got.TS.Equal(ts.Add(time.Minute)) {
		t.Errorf("round trip = %+v (%s)", back, raw)
	}
	old, err := Parse([]byte(`{"ts":"2026-05-01T10:00:00Z"}`))
	if err != nil || old.Intents != nil {
		t.Errorf("old value: %+v %v", old, err)
	}
	first, err := Parse([]byte(`{"ts":"0001-01-01T00:00:00Z","intents":{"triage":{"key":"k@1","change":"2026-05-01T10:00:00Z","ts":"2026-05-01T10:00:01Z"}}}`))
	if err != nil || !first.TS.IsZero() || first.Intents["triage"].Key != "k@1" {
		t.Errorf("intents before the first checkpoint: %+v %v", first, err)
	}
	if _, err := Parse([]byte(`{"ts":"0001-01-01T00:00:00Z"}`)); err == nil {
		t.Error("a zero ts without intents was accepted")
	}
	if UTCIntents(map[string]Intent{}) != nil {
		t.Error("UTCIntents of none is not nil")
	}
}
