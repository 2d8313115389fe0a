package polllock

import (
	"strings"
	"testing"
	"time"
)

func TestReceiptsKey(t *testing.T) {
	if got := ReceiptsKey("acme/platform"); got != "fullsend.poll.acme.platform.receipts" {
		t.Errorf("got %q", got)
	}
}

func TestReceiptsRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("x", 3600))
	r := Receipts{}
	if n := r.Tried("triage", "v1", "p.1", at); n != 1 {
		t.Fatalf("first try %d", n)
	}
	if n := r.Tried("triage", "v1", "p.2", at.Add(time.Minute)); n != 2 {
		t.Fatalf("second try %d", n)
	}
	if n := r.Tried("stale", "v9", "p.2", at); n != 1 {
		t.Fatalf("other harness %d", n)
	}
	s := r.Succeeded("triage", "v1", "gha-dispatch/42", at.Add(2*time.Minute))
	if s.Attempts != 2 || s.Outcome != OutcomeSucceeded || r["triage"].Tries != nil {
		t.Fatalf("success: %+v, record %+v", s, r["triage"])
	}
	if n := r.Tried("stale", "v10", "p.3", at); n != 1 {
		t.Errorf("a new version starts again at 1, got %d", n)
	}
	if !r.Quarantined("stale", "v10") || r.Quarantined("stale", "v9") || r.Quarantined("none", "v") {
		t.Error("Quarantined marks the tries of the given version only")
	}
	raw := r.Marshal()
	if !strings.Contains(string(raw), `"at":"2026-03-01T11:02:00.123Z"`) {
		t.Errorf("times in UTC at millisecond precision: %s", raw)
	}
	back, err := ParseReceipts(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Covers("triage", "v1") || back.Covers("triage", "v2") || back.Covers("stale", "v10") {
		t.Errorf("covers: %+v", back)
	}
	if tr := back["stale"].Tries; tr == nil || !tr.Quarantined || tr.Lock != "p.3" {
		t.Errorf("tries: %+v", tr)
	}
}

func TestParseReceipts(t *testing.T) {
	cases := []struct {
		name, raw, err string
	}{
		{"missing", "", ""},
		{"null", "null", ""},
		{"empty", "{}", ""},
		{"not an object", "[1]", "not a receipts object"},
		{"receipt without version", `{"h":{"success":{"outcome":"succeeded"}}}`, "a receipt needs a version"},
		{"receipt of a failure", `{"h":{"success":{"version":"v","outcome":"failed"}}}`, `outcome "succeeded"`},
		{"tries without count", `{"h":{"tries":{"version":"v"}}}`, "count of at least 1"},
		{"tries without version", `{"h":{"tries":{"count":2}}}`, "tries need a version"},
		{"good", `{"h":{"success":{"version":"v","outcome":"succeeded","run":"r","at":"2026-01-01T00:00:00Z","attempts":1}}}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseReceipts([]byte(tc.raw))
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err == "" && r == nil:
				t.Fatal("a nil map")
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestReceiptsPrune(t *testing.T) {
	r := Receipts{}
	for i := range MaxReceiptHarnesses + 2 {
		r.Tried(string(rune('a'+i%26))+strings.Repeat("x", i/26), "v", "l", time.Time{})
	}
	r.Prune(func(h string) bool { return h == "a" })
	if len(r) != 1 {
		t.Errorf("kept %d", len(r))
	}
	small := Receipts{}
	small.Tried("gone", "v", "l", time.Time{})
	small.Prune(func(string) bool { return false })
	if len(small) != 1 {
		t.Error("below the bound nothing is dropped")
	}
}

func FuzzParseReceipts(f *testing.F) {
	for _, s := range []string{"", "{}", `{"h":{"success":{"version":"v","outcome":"succeeded"},"tries":{"version":"w","count":1}}}`, "[", `{"h":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := ParseReceipts(raw)
		if err != nil {
			return
		}
		if _, err := ParseReceipts(r.Marshal()); err != nil {
			t.Fatalf("a parsed value must parse again: %v", err)
		}
	})
}
