package workflows

import (
	"fmt"
	"testing"
)

func TestFindingString(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{File: ".github/workflows/a.yml", Line: 12, Message: "no group"}, ".github/workflows/a.yml:12: no group"},
		{Finding{File: ".gitlab-ci.yml", Line: 0, Message: "missing"}, ".gitlab-ci.yml:0: missing"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestSortFindings(t *testing.T) {
	fs := []Finding{{"b.yml", 1, "x"}, {"a.yml", 9, "y"}, {"a.yml", 2, "z"}, {"a.yml", 2, "a"}}
	SortFindings(fs)
	want := "[a.yml:2: a a.yml:2: z a.yml:9: y b.yml:1: x]"
	if got := fmt.Sprint(fs); got != want {
		t.Fatalf("sorted = %s, want %s", got, want)
	}
}
