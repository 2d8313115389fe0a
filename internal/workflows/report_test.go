package workflows

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "file", "0 files"},
		{1, "file", "1 file"},
		{2, "job", "2 jobs"},
		{-1, "job", "-1 jobs"},
	} {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

func TestSkippedString(t *testing.T) {
	s := Skipped{File: ".github/workflows/ci.yml", Reason: "no job runs fullsend"}
	if got, want := s.String(), "not checked: .github/workflows/ci.yml: no job runs fullsend"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
