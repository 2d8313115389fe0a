package workflows

import "fmt"

// Skipped is a file a checker read but applied no rule to, and why.
type Skipped struct {
	File   string
	Reason string
}

// String renders it as "not checked: file: reason".
func (s Skipped) String() string { return fmt.Sprintf("not checked: %s: %s", s.File, s.Reason) }
