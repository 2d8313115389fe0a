package reconcile

import (
	"testing"
	"time"
)

// TestGiveUps: a key added is had; a full memory starts afresh on Add and
// takes no more on Restore.
func TestGiveUps(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var g GiveUps
	k := GiveUpKey("triage", "acme/platform:github:work_item:7", "v1:ab")
	if k != "triage:acme/platform:github:work_item:7@v1:ab" || g.Has(k) {
		t.Fatalf("key %q, had before added: %v", k, g.Has(k))
	}
	g.Add(k, at)
	if !g.Has(k) {
		t.Fatal("added key not had")
	}
	full := GiveUps{}
	for i := range MaxGiveUps {
		full.Restore(GiveUpKey("h", "t", string(rune('a'+i%26))+time.Duration(i).String()), at)
	}
	full.Restore(k, at)
	if full.Has(k) || len(full) != MaxGiveUps {
		t.Fatalf("restore past the bound: %d keys, has %v", len(full), full.Has(k))
	}
	full.Add(k, at)
	if len(full) != 1 || !full.Has(k) {
		t.Fatalf("add past the bound: %d keys", len(full))
	}
}
