// Package workflows holds what the CI workflow generators and checkers of
// every platform share (one sub-package per platform: ghactions,
// gitlabci): findings, option checks and YAML helpers.
package workflows

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Finding is one problem a workflow checker found in a workflow file.
// File is the path as given to the checker, Line is 1-based (0 when the
// problem has no single line, e.g. a missing file), Message is a short
// human-readable explanation.
type Finding struct {
	File    string
	Line    int
	Message string
}

// String renders the finding as "file:line: message", the format editors
// and CI log viewers recognise.
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message)
}

// SortFindings orders findings by file, then line, then message, so that
// checker output is stable.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), strings.Compare(a.Message, b.Message))
	})
}
