// Package workflows holds types shared by the CI workflow generators and
// checkers (one sub-package per platform, e.g. ghactions and gitlabci).
package workflows

import (
	"fmt"
	"sort"
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
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Message < b.Message
	})
}
