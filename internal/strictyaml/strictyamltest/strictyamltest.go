// Package strictyamltest checks the problems a strict YAML decoder
// reported, for the tests of the decoders of config.yaml and harness files.
package strictyamltest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/strictyaml"
)

// Want is an expected problem: file base name, position and a message
// fragment. It is an alias of a struct type, so that tables of
// problems list them positionally.
type Want = struct {
	File      string
	Line, Col int
	Msg       string
}

// Check asserts err is Errors holding exactly the wanted problems
// in order.
func Check(t *testing.T, err error, wants []Want) {
	t.Helper()
	es, ok := err.(strictyaml.Errors)
	if !ok {
		t.Fatalf("error is %T (%v), want strictyaml.Errors", err, err)
	}
	if len(es) != len(wants) {
		t.Fatalf("got %d problems, want %d:\n%v", len(es), len(wants), es)
	}
	for i, w := range wants {
		p := es[i]
		if filepath.Base(p.File) != w.File || p.Line != w.Line || p.Col != w.Col || !strings.Contains(p.Msg, w.Msg) {
			t.Errorf("problem %d = %s, want %s:%d:%d containing %q", i, p, w.File, w.Line, w.Col, w.Msg)
		}
	}
}
