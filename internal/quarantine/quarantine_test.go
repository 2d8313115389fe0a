package quarantine

import (
	"fmt"
	"testing"
	"time"
)

func TestQuarantineKeyAndRecord(t *testing.T) {
	if k := Key("acme/platform"); k != "fullsend.poll.acme.platform.quarantine" {
		t.Fatalf("key = %q", k)
	}
	if k := Key("group/sub/proj"); k != "fullsend.poll.group.sub.proj.quarantine" {
		t.Fatalf("nested key = %q", k)
	}
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	var q Quarantine
	steps := []struct {
		harness, change string
		want            int
	}{
		{"triage", "comment/1", 1}, {"triage", "comment/1", 2}, {"review", "comment/1", 1},
		{"triage", "comment/2", 1}, {"triage", "comment/2", 2}, {"triage", "comment/2", 3},
	}
	for i, s := range steps {
		if got := q.Fail(s.harness, s.change, "boom", now); got != s.want {
			t.Fatalf("step %d: count %d, want %d", i, got, s.want)
		}
	}
	q.Add(Entry{Change: "comment/2", Harness: "triage", Reason: "boom", Attempts: 3})
	if _, ok := q.Attempts["triage"]; ok || q.Attempts["review"].Count != 1 {
		t.Fatalf("attempts after Add: %+v", q.Attempts)
	}
	for i := range MaxEntries + 5 {
		q.Add(Entry{Change: fmt.Sprintf("c/%d", i)})
	}
	if len(q.Entries) != MaxEntries || q.Entries[len(q.Entries)-1].Change != fmt.Sprintf("c/%d", MaxEntries+4) {
		t.Fatalf("entries not bounded to the newest: %d", len(q.Entries))
	}
	back, err := Parse(q.Marshal())
	if err != nil || len(back.Entries) != MaxEntries || back.Attempts["review"].Count != 1 {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	if _, err := Parse([]byte(`[1]`)); err == nil {
		t.Fatal("corrupt value accepted")
	}
	if string((Quarantine{}).Marshal()) != `{"entries":[]}` {
		t.Fatalf("empty marshal = %s", (Quarantine{}).Marshal())
	}
}
