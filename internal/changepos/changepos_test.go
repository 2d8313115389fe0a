package changepos

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

func TestChangePosOrderAndID(t *testing.T) {
	s := time.Date(2026, 5, 1, 10, 0, 7, 0, time.UTC)
	tests := []struct {
		a, b Pos
		want int
	}{
		{Pos{At: s, ID: 5}, Pos{At: s, ID: 9}, -1},                      // same second, told apart by id
		{Pos{At: s}, Pos{At: s, ID: 1}, -1},                             // a bare time covers no id of its instant
		{Pos{At: s.Add(time.Millisecond)}, Pos{At: s, ID: 9}, 1},        // time first
		{Pos{At: s.Add(time.Microsecond), ID: 3}, Pos{At: s, ID: 3}, 0}, // millisecond precision
	}
	for _, tc := range tests {
		if got := tc.a.Compare(tc.b); got != tc.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestChangeIDRoundTrip(t *testing.T) {
	s := time.Date(2026, 5, 1, 10, 0, 0, 123_000_000, time.UTC)
	for _, p := range []Pos{{At: s}, {At: s, ID: 4021}} {
		got, ok := ParseID(ID(p))
		if !ok || got.Compare(p) != 0 || !got.At.Equal(p.At) {
			t.Errorf("ParseID(ID(%v)) = %v, %v", p, got, ok)
		}
	}
	if got := Key("triage:acme/p:github:work_item:7", Pos{At: s, ID: 4021}); got != "triage:acme/p:github:work_item:7@1777629600123.4021" {
		t.Errorf("Key = %q", got)
	}
	for _, bad := range []string{"", "sha256:ab", "12.", "12.0", "12.-3", ".5", "+12", "12.+4", "1e3"} {
		if p, ok := ParseID(bad); ok {
			t.Errorf("ParseID(%q) = %v, true; want false", bad, p)
		}
	}
}

func FuzzParseChangeID(f *testing.F) {
	f.Add("1777626000123")
	f.Add("1777626000123.4021")
	f.Add("sha256:00")
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := ParseID(s)
		if !ok {
			return
		}
		q, ok := ParseID(ID(p))
		if !ok || q.Compare(p) != 0 {
			t.Fatalf("%q → %v does not round-trip (%v, %v)", s, p, q, ok)
		}
	})
}

func TestKeyPos(t *testing.T) {
	s := time.Date(2026, 5, 1, 10, 0, 0, 123_000_000, time.UTC)
	tests := []struct {
		key  string
		want Pos
		ok   bool
	}{
		{"triage:acme/p:github:work_item:7@1777629600123.4021", Pos{At: s, ID: 4021}, true},
		{"triage:acme/p:github:work_item:7@1777629600123", Pos{At: s}, true}, // no id: a bare time (older runs too)
		{"triage:acme/p:github:work_item:7@v1:sha256:ab", Pos{}, false},      // a scheduled run's entity version
		{"triage:acme/p:github:work_item:7", Pos{}, false},
		{"", Pos{}, false},
	}
	for _, tc := range tests {
		got, ok := OfKey(tc.key)
		if ok != tc.ok || got.Compare(tc.want) != 0 {
			t.Errorf("OfKey(%q) = %v, %v; want %v, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
}

// TestLastComplete: a change stamped t (at resolution r) is taken as
// complete only once now, less the clock's error, has passed t + r: the
// second the platform's clock may still be in is never complete.
func TestLastComplete(t *testing.T) {
	s := time.Date(2026, 5, 1, 10, 0, 7, 0, time.UTC) // a change stamped at this second
	tests := []struct {
		now  time.Duration // after s
		res  time.Duration
		want bool // s is complete
	}{
		{0, time.Second, false},
		{999 * time.Millisecond, time.Second, false},
		{trackerclock.ClockError + 999*time.Millisecond, time.Second, false}, // this host may be ClockError ahead
		{trackerclock.ClockError + time.Second, time.Second, true},
		{trackerclock.ClockError + time.Millisecond, time.Millisecond, true},
		{trackerclock.ClockError, time.Millisecond, false},
	}
	for _, tc := range tests {
		if got := !s.After(LastComplete(s.Add(tc.now), tc.res)); got != tc.want {
			t.Errorf("now = s+%v, resolution %v: complete %v, want %v", tc.now, tc.res, got, tc.want)
		}
	}
}

func TestIdempotencyKey(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 123_456_789, time.FixedZone("x", 3600))
	tests := []struct {
		scope string
		at    time.Time
		want  string
	}{
		{"triage:acme/platform:jira:issue:10001", at, "triage:acme/platform:jira:issue:10001@1777626000123"},
		{"triage:acme/platform:jira:issue:10001", at.UTC(), "triage:acme/platform:jira:issue:10001@1777626000123"}, // zone-independent
		{"code:acme/platform:jira:issue:10001", at.Add(time.Millisecond), "code:acme/platform:jira:issue:10001@1777626000124"},
	}
	for _, tc := range tests {
		if got := KeyAt(tc.scope, tc.at); got != tc.want {
			t.Errorf("IdempotencyKey(%q, %v) = %q, want %q", tc.scope, tc.at, got, tc.want)
		}
	}
}
