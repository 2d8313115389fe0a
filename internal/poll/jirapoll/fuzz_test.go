package jirapoll

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
)

func testDriver(t testing.TB) *Driver {
	d, err := New(Options{API: nilAPI{}, SiteURL: "https://jira.example", Repo: "acme/platform", PollerID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// nilAPI satisfies JiraAPI for tests that never call it.
type nilAPI struct{ JiraAPI }

// FuzzCheckpoint feeds arbitrary lastCheck and lock values (which come
// from Jira, i.e. from anyone who can edit issue properties) to the
// classification: it must never panic, never yield a checkpoint in the
// future, and never report a corrupt lock as held.
func FuzzCheckpoint(f *testing.F) {
	for _, s := range []string{`{"ts":"2026-01-01T00:00:00Z"}`, `"2026-01-01T00:00:00Z"`, `{"ts":true}`, `null`, `[]`,
		`{"ts":"2026-01-01T00:00:00Z","harness":{"a":"2025-01-01T00:00:00Z"}}`, `{"ts":"2999-01-01T00:00:00Z"}`,
		`{"id":"x","ts":"2026-01-01T00:00:00Z","phase":"running","runs":[]}`, `{"id":"","ts":"x"}`,
		`{"id":"x.1","ts":"2026-05-31T23:59:00Z","phase":"pending","runs":[],"from":{"ts":"2026-05-01T00:00:00Z","harness":{"a":"2026-04-01T00:00:00Z"}}}`,
		`{"id":"x.1","ts":"2026-01-01T00:00:00Z","phase":"dispatched","runs":[{"driver":"gha-dispatch"}],"from":{"ts":"0001-01-01T00:00:00Z"}}`} {
		f.Add([]byte(s))
	}
	d := testDriver(f)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // Jira stores JSON only
		}
		cp, bad := d.checkpoint("P-1", raw, now)
		if !bad && cp.At.After(now.Add(d.o.StaleThreshold)) {
			t.Fatalf("future checkpoint %v accepted", cp.At)
		}
		if cp.Min().After(cp.At) {
			t.Fatalf("retry position after the checkpoint: %+v", cp)
		}
		lv := d.lockView("P-1", raw, now)
		if lv.corrupt && (lv.locked || !lv.stale || lv.owed != nil) {
			t.Fatalf("corrupt lock %q: %+v", raw, lv)
		}
		if lv.locked && lv.stale {
			t.Fatalf("lock %q both held and stale", raw)
		}
		if lv.owed != nil {
			back := rewind(cp, *lv.owed)
			for _, h := range []string{"a", "b"} {
				if back.Pos(h).After(cp.Pos(h)) || (!back.At.IsZero() && back.Pos(h).After(lv.owed.Pos(h))) {
					t.Fatalf("rewind of %+v to %+v moved %s forward: %+v", cp, *lv.owed, h, back)
				}
			}
		}
		_ = lastCheckValue(cp, "p")
	})
}

func TestLastCheckRoundTrip(t *testing.T) {
	d := testDriver(t)
	cp := poll.Checkpoint{At: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC),
		Retry: map[string]time.Time{"audit": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	got, bad := d.checkpoint("P-1", lastCheckValue(cp, "p"), cp.At)
	if bad || !got.At.Equal(cp.At) || !got.Pos("audit").Equal(cp.Retry["audit"]) || !got.Pos("triage").Equal(cp.At) {
		t.Errorf("round trip: %+v (bad %v)", got, bad)
	}
}
