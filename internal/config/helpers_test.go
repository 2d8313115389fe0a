package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// envOf returns a getenv over a fixed map.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// want is an expected problem: file base name, position and a message
// fragment.
type want struct {
	file      string
	line, col int
	msg       string
}

// checkProblems asserts err is Errors holding exactly the wanted problems
// in order.
func checkProblems(t *testing.T, err error, wants []want) {
	t.Helper()
	es, ok := err.(Errors)
	if !ok {
		t.Fatalf("error is %T (%v), want config.Errors", err, err)
	}
	if len(es) != len(wants) {
		t.Fatalf("got %d problems, want %d:\n%v", len(es), len(wants), es)
	}
	for i, w := range wants {
		p := es[i]
		if filepath.Base(p.File) != w.file || p.Line != w.line || p.Col != w.col || !strings.Contains(p.Msg, w.msg) {
			t.Errorf("problem %d = %s, want %s:%d:%d containing %q", i, p, w.file, w.line, w.col, w.msg)
		}
	}
}
