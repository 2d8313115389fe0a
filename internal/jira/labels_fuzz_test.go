package jira

import (
	"slices"
	"strings"
	"testing"
)

func FuzzDiffLabels(f *testing.F) {
	f.Add("bug ready", "ready triage")
	f.Add("", "a")
	f.Add("a  b", "")
	f.Fuzz(func(t *testing.T, from, to string) {
		added, removed := DiffLabels(from, to)
		for _, l := range added {
			if !slices.Contains(strings.Fields(to), l) || slices.Contains(strings.Fields(from), l) {
				t.Fatalf("added %q wrongly (%q → %q)", l, from, to)
			}
		}
		for _, l := range removed {
			if !slices.Contains(strings.Fields(from), l) || slices.Contains(strings.Fields(to), l) {
				t.Fatalf("removed %q wrongly (%q → %q)", l, from, to)
			}
		}
	})
}
