package event

import (
	"fmt"
	"strings"
	"testing"
)

func TestStateLabels(t *testing.T) {
	many := make([]string, MaxLabels+1)
	for i := range many {
		many[i] = fmt.Sprintf("l%d", i)
	}
	long := strings.Repeat("é", MaxLabel+1)
	tests := []struct {
		name      string
		in        []string
		want      int
		truncated bool
	}{
		{"nil", nil, 0, false},
		{"a few", []string{"bug", "ready"}, 2, false},
		{"empty names dropped", []string{"", "bug"}, 1, false},
		{"exactly the limit", many[:MaxLabels], MaxLabels, false},
		{"one too many", many, MaxLabels, true},
		{"a name too long", []string{long}, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := StateLabels(tc.in)
			if got == nil || len(got) != tc.want || cut != tc.truncated {
				t.Fatalf("StateLabels = %d labels (nil %v), truncated %v; want %d, %v", len(got), got == nil, cut, tc.want, tc.truncated)
			}
			ev, err := Decode([]byte(exampleJSON))
			if err != nil {
				t.Fatal(err)
			}
			ev.State = State{Labels: got, LabelsTruncated: cut}
			if err = ev.Validate(); err != nil {
				t.Errorf("event with these labels is invalid: %v", err)
			}
		})
	}
}
