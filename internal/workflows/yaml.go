package workflows

import "go.yaml.in/yaml/v3"

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
