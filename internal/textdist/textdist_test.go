package textdist

import "testing"

func TestLevenshtein(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"input", "input-file", 5},
		{"dryrun", "dry-run", 1},
		{"output-drivr", "output-driver", 1},
		{"kitten", "sitting", 3},
		{"héllo", "hello", 1},
		{"abc", "", 3},
	}
	for _, tc := range cases {
		if got := Levenshtein(tc.a, tc.b); got != tc.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Levenshtein(tc.b, tc.a); got != tc.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}
