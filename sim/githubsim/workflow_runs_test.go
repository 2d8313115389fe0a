package githubsim

import (
	"testing"
	"time"
)

func TestParseCreated(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		q    string
		want []bool // for at-1s, at, at+1s
		bad  bool
	}{
		{q: "", want: []bool{true, true, true}},
		{q: ">=2026-05-01T10:00:00Z", want: []bool{false, true, true}},
		{q: ">2026-05-01T10:00:00Z", want: []bool{false, false, true}},
		{q: "<=2026-05-01T10:00:00Z", want: []bool{true, true, false}},
		{q: "<2026-05-01T10:00:00Z", want: []bool{true, false, false}},
		{q: "2026-05-01T10:00:00Z..2026-05-01T10:00:01Z", want: []bool{false, true, true}},
		{q: "2026-05-01", want: []bool{true, true, true}},
		{q: ">=yesterday", bad: true},
		{q: "a..b", bad: true},
	}
	for _, tc := range cases {
		f, err := parseCreated(tc.q)
		if tc.bad {
			if err == nil {
				t.Errorf("parseCreated(%q) accepted", tc.q)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseCreated(%q): %v", tc.q, err)
			continue
		}
		for i, d := range []time.Duration{-time.Second, 0, time.Second} {
			if got := f(at.Add(d)); got != tc.want[i] {
				t.Errorf("parseCreated(%q)(at%+v) = %v, want %v", tc.q, d, got, tc.want[i])
			}
		}
	}
}
