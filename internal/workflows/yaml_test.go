package workflows

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestMapEntry(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: 1\nb: [x]\na: 2\n"), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Content[0]
	if k, v := MapEntry(m, "a"); k == nil || k.Line != 1 || v.Value != "1" {
		t.Errorf("a = %v, %v; want the first entry", k, v)
	}
	if _, v := MapEntry(m, "b"); v == nil || v.Kind != yaml.SequenceNode {
		t.Errorf("b = %v", v)
	}
	if k, v := MapEntry(m, "c"); k != nil || v != nil {
		t.Error("missing key found")
	}
	if k, v := MapEntry(nil, "a"); k != nil || v != nil {
		t.Error("nil node yields an entry")
	}
	if k, v := MapEntry(m.Content[3], "x"); k != nil || v != nil {
		t.Error("sequence node yields an entry")
	}
}

func TestIndent(t *testing.T) {
	if got := Indent(2, "a\n\n  b\n\n"); got != "  a\n\n    b" {
		t.Fatalf("Indent = %q", got)
	}
}
