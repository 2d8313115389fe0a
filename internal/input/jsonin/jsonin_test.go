package jsonin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const good = `{"repo":"acme/platform","entity":{"kind":"work_item","id":7,"url":"https://github.com/acme/platform/issues/7"},
"transition":{"kind":"opened"},"actor":{"id":"1","kind":"human","role":"write","is_entity_author":true},
"state":{"labels":[]},"source":{"system":"github","raw_type":"issues","raw_action":"opened"}}`

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ev.json")
	if err := os.WriteFile(file, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		path   string
		stdin  string
		errHas string
	}{
		{"file", file, "", ""},
		{"stdin dash", "-", good, ""},
		{"stdin default", "", good, ""},
		{"missing file", filepath.Join(dir, "nope.json"), "", "nope.json"},
		{"invalid names stdin", "-", `{"repo":1}`, "stdin: "},
		{"oversized", "-", `{"repo":"` + strings.Repeat("x", 2<<20) + `"}`, "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := New(c.path, strings.NewReader(c.stdin)).Read(context.Background())
			if c.errHas == "" {
				if err != nil || ev.Entity.ID != 7 {
					t.Fatalf("Read = %+v, %v", ev, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Fatalf("err = %v, want %q", err, c.errHas)
			}
		})
	}
	if New("", nil).Name() != "json" {
		t.Fatal("name")
	}
}
