package workflows

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// MapEntry returns the key and value nodes of key in mapping m, or nil, nil
// when m is nil, is not a mapping or lacks key. With duplicate keys the
// first one wins.
func MapEntry(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// Indent prefixes every non-empty line of s with n spaces and drops its
// trailing newlines, for text placed in a YAML block scalar by a template.
func Indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n")
}
