package workflows

import (
	"regexp"
	"testing"
)

func TestCheckValues(t *testing.T) {
	safe := regexp.MustCompile(`^[a-z]+$`)
	tests := []struct {
		name string
		vs   []Value
		want string
	}{
		{"none", nil, ""},
		{"all safe", []Value{{"a", "x"}, {"b", "y"}}, ""},
		{"second unsafe", []Value{{"a", "x"}, {"runs-on", "x y"}}, `runs-on "x y": want lower-case letters`},
		{"first of two unsafe", []Value{{"a", "1"}, {"b", "2"}}, `a "1": want lower-case letters`},
		{"empty", []Value{{"image", ""}}, `image "": want lower-case letters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckValues(safe, "lower-case letters", tt.vs...)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Fatalf("CheckValues = %q, want %q", got, tt.want)
			}
		})
	}
}
