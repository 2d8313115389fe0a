package english

import "testing"

func TestCount(t *testing.T) {
	cases := []struct {
		n    int
		noun string
		want string
	}{
		{0, "agent", "0 agents"},
		{1, "agent", "1 agent"},
		{2, "agent", "2 agents"},
		{1, "file", "1 file"},
		{3, "dispatch", "3 dispatches"},
		{2, "address", "2 addresses"},
		{2, "box", "2 boxes"},
		{2, "property", "2 properties"},
		{2, "day", "2 days"},
		{1, "newest-updated candidate", "1 newest-updated candidate"},
		{4, "newest-updated candidate", "4 newest-updated candidates"},
		{-1, "second", "-1 second"},
	}
	for _, tc := range cases {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

func TestOr(t *testing.T) {
	cases := []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"json"}, "json"},
		{[]string{"json", "gha-event"}, "json or gha-event"},
		{[]string{"json", "gha-event", "gitlab-event"}, "json, gha-event or gitlab-event"},
	}
	for _, tc := range cases {
		if got := Or(tc.items); got != tc.want {
			t.Errorf("Or(%q) = %q, want %q", tc.items, got, tc.want)
		}
	}
}
