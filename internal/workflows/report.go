package workflows

import "fmt"

// Skipped is a file a checker read but applied no rule to, and why.
type Skipped struct {
	File   string
	Reason string
}

// String renders it as "not checked: file: reason".
func (s Skipped) String() string { return fmt.Sprintf("not checked: %s: %s", s.File, s.Reason) }

// Count is n and noun, the noun in the plural unless n is 1: "1 file",
// "3 jobs", "0 files". noun is a regular English noun (plural in -s).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
