package workflows

import "testing"

func TestSkippedString(t *testing.T) {
	s := Skipped{File: ".github/workflows/ci.yml", Reason: "no job runs fullsend"}
	if got, want := s.String(), "not checked: .github/workflows/ci.yml: no job runs fullsend"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
