package receipts

import (
	"strings"
	"testing"
	"time"
)

func TestReceiptsKey(t *testing.T) {
	if got := Key("acme/platform"); got != "fullsend.poll.acme.platform.receipts" {
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
	back, err := Parse(raw)
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
			r, err := Parse([]byte(tc.raw))
			switch {
			case r == nil:
				t.Fatal("a nil map")
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want %q", err, tc.err)
			case tc.err != "" && !r.Unreadable() && r.Of("h").Unreadable == nil:
				t.Fatal("the record that cannot be read is not kept as such")
			}
		})
	}
}

// TestReceiptsKeepWhatCanBeRead: one record that cannot be read leaves
// the others readable, is written back as it was read, holds its own
// tries back (Tried and Quarantined change nothing) and is replaced only
// by its harness's success; a value that is not an object at all is
// unreadable for every harness and written back whole.
func TestReceiptsKeepWhatCanBeRead(t *testing.T) {
	const bad = `{"tries":{"version":"v","count":0}}`
	raw := `{"ok":{"tries":{"version":"v","count":2,"at":"2026-01-01T00:00:00Z","lock":"l","quarantined":true}},"bad":` + bad + `}`
	r, err := Parse([]byte(raw))
	if err == nil || !strings.Contains(err.Error(), "bad:") {
		t.Fatalf("error %v, want one naming the unreadable record", err)
	}
	if tr := r.Of("ok").Tries; tr == nil || tr.Count != 2 || !tr.Quarantined {
		t.Fatalf("the readable record: %+v", r["ok"])
	}
	if r.Tried("bad", "v", "l2", time.Time{}) != 0 || r.Quarantined("bad", "v") || string(r["bad"].Unreadable) != bad {
		t.Fatalf("an unreadable record must hold its tries back: %+v", r["bad"])
	}
	if out := string(r.Marshal()); !strings.Contains(out, `"bad":`+bad) || !strings.Contains(out, `"quarantined":true`) {
		t.Fatalf("written back: %s", out)
	}
	r.Succeeded("bad", "v", "run/1", time.Time{})
	if back, err := Parse(r.Marshal()); err != nil || !back.Covers("bad", "v") {
		t.Fatalf("a success replaces the unreadable record: %v %s", err, r.Marshal())
	}
	whole, err := Parse([]byte(`["x"]`))
	if err == nil || !whole.Unreadable() || whole.Of("any").Unreadable == nil || string(whole.Marshal()) != `["x"]` {
		t.Fatalf("a value that is not an object: %v %+v", err, whole)
	}
}

func TestReceiptsPrune(t *testing.T) {
	r := Receipts{}
	for i := range MaxHarnesses + 2 {
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
		r, err := Parse(raw)
		if r == nil {
			t.Fatal("a nil map")
		}
		if r.Unreadable() {
			if err == nil || string(r.Marshal()) != string(raw) {
				t.Fatalf("a value that is not an object is kept whole, with an error: %v", err)
			}
			return
		}
		back, err2 := Parse(r.Marshal())
		if (err == nil) != (err2 == nil) || len(back) != len(r) {
			t.Fatalf("written back, a value must read the same: %v / %v, %d / %d records", err, err2, len(r), len(back))
		}
		for h, rec := range r {
			if (rec.Unreadable == nil) != (back[h].Unreadable == nil) {
				t.Fatalf("record %q: unreadable %v, then %v", h, rec.Unreadable != nil, back[h].Unreadable != nil)
			}
		}
	})
}
