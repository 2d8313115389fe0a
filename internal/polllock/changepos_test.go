package polllock

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

func TestChangePosOrderAndID(t *testing.T) {
	s := time.Date(2026, 5, 1, 10, 0, 7, 0, time.UTC)
	tests := []struct {
		a, b ChangePos
		want int
	}{
		{ChangePos{At: s, ID: 5}, ChangePos{At: s, ID: 9}, -1},                      // same second, told apart by id
		{ChangePos{At: s}, ChangePos{At: s, ID: 1}, -1},                             // a bare time covers no id of its instant
		{ChangePos{At: s.Add(time.Millisecond)}, ChangePos{At: s, ID: 9}, 1},        // time first
		{ChangePos{At: s.Add(time.Microsecond), ID: 3}, ChangePos{At: s, ID: 3}, 0}, // millisecond precision
	}
	for _, tc := range tests {
		if got := tc.a.Compare(tc.b); got != tc.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestChangeIDRoundTrip(t *testing.T) {
	s := time.Date(2026, 5, 1, 10, 0, 0, 123_000_000, time.UTC)
	for _, p := range []ChangePos{{At: s}, {At: s, ID: 4021}} {
		got, ok := ParseChangeID(ChangeIDAt(p))
		if !ok || got.Compare(p) != 0 || !got.At.Equal(p.At) {
			t.Errorf("ParseChangeID(ChangeIDAt(%v)) = %v, %v", p, got, ok)
		}
	}
	if got := IdempotencyKeyAt("triage:acme/p:github:work_item:7", ChangePos{At: s, ID: 4021}); got != "triage:acme/p:github:work_item:7@1777629600123.4021" {
		t.Errorf("IdempotencyKeyAt = %q", got)
	}
	for _, bad := range []string{"", "sha256:ab", "12.", "12.0", "12.-3", ".5", "+12", "12.+4", "1e3"} {
		if p, ok := ParseChangeID(bad); ok {
			t.Errorf("ParseChangeID(%q) = %v, true; want false", bad, p)
		}
	}
}

func FuzzParseChangeID(f *testing.F) {
	f.Add("1777626000123")
	f.Add("1777626000123.4021")
	f.Add("sha256:00")
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := ParseChangeID(s)
		if !ok {
			return
		}
		q, ok := ParseChangeID(ChangeIDAt(p))
		if !ok || q.Compare(p) != 0 {
			t.Fatalf("%q → %v does not round-trip (%v, %v)", s, p, q, ok)
		}
	})
}

func TestKeyPos(t *testing.T) {
	s := time.Date(2026, 5, 1, 10, 0, 0, 123_000_000, time.UTC)
	tests := []struct {
		key  string
		want ChangePos
		ok   bool
	}{
		{"triage:acme/p:github:work_item:7@1777629600123.4021", ChangePos{At: s, ID: 4021}, true},
		{"triage:acme/p:github:work_item:7@1777629600123", ChangePos{At: s}, true}, // no id: a bare time (older runs too)
		{"triage:acme/p:github:work_item:7@v1:sha256:ab", ChangePos{}, false},      // a scheduled run's entity version
		{"triage:acme/p:github:work_item:7", ChangePos{}, false},
		{"", ChangePos{}, false},
	}
	for _, tc := range tests {
		got, ok := KeyPos(tc.key)
		if ok != tc.ok || got.Compare(tc.want) != 0 {
			t.Errorf("KeyPos(%q) = %v, %v; want %v, %v", tc.key, got, ok, tc.want, tc.ok)
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
