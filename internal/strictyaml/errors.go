package strictyaml

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one configuration error at a position in a file. Line and Col
// are 1-based; Line 0 means the problem has no position in the file (for
// example a value that came from an environment variable).
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

// String renders "file:line:col: msg", or "file: msg" without a position.
func (p Problem) String() string {
	if p.Line <= 0 {
		return fmt.Sprintf("%s: %s", p.File, p.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
}

// Errors is every problem found while loading configuration. Loaders
// collect all problems instead of stopping at the first, and return a
// non-empty Errors as their error.
type Errors []Problem

// Error renders one problem per line.
func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, p := range e {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Err returns e as an error, or nil when e is empty.
func (e Errors) Err() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// Sort orders problems by file, then line, then column, keeping the
// discovery order of problems at the same position.
func (e Errors) Sort() {
	slices.SortStableFunc(e, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
}

// AsErrors converts err into Errors: an Errors is returned as is, any
// other error becomes one problem without a position in file.
func AsErrors(err error, file string) Errors {
	if err == nil {
		return nil
	}
	if es, ok := err.(Errors); ok {
		return es
	}
	return Errors{{File: file, Msg: err.Error()}}
}
