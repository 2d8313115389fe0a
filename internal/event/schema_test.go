package event

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSchemaMatchesGoTypes keeps schema.json and the Go types in step: each
// object's properties are exactly the struct's JSON names, and its required
// list is exactly the fields without omitempty.
func TestSchemaMatchesGoTypes(t *testing.T) {
	root := parse(t, string(Schema()))
	defs := root["$defs"].(map[string]any)
	prop := func(obj map[string]any, name string) map[string]any {
		return obj["properties"].(map[string]any)[name].(map[string]any)
	}
	transition := defs["transition"].(map[string]any)
	state := defs["state"].(map[string]any)
	conversation := prop(state, "conversation")
	tests := []struct {
		typ    reflect.Type
		schema map[string]any
	}{
		{reflect.TypeFor[Event](), root},
		{reflect.TypeFor[Entity](), defs["entity"].(map[string]any)},
		{reflect.TypeFor[LinkedChangeProposal](), prop(defs["entity"].(map[string]any), "linked_change_proposal")},
		{reflect.TypeFor[Transition](), transition},
		{reflect.TypeFor[Label](), prop(transition, "label")},
		{reflect.TypeFor[Comment](), prop(transition, "comment")},
		{reflect.TypeFor[Review](), prop(transition, "review")},
		{reflect.TypeFor[Actor](), defs["actor"].(map[string]any)},
		{reflect.TypeFor[State](), state},
		{reflect.TypeFor[ChangeProposal](), prop(state, "change_proposal")},
		{reflect.TypeFor[Conversation](), conversation},
		{reflect.TypeFor[Category](), prop(conversation, "category")},
		{reflect.TypeFor[Source](), defs["source"].(map[string]any)},
	}
	for _, tc := range tests {
		t.Run(tc.typ.Name(), func(t *testing.T) {
			if tc.schema["additionalProperties"] != false {
				t.Errorf("schema object for %s is not closed", tc.typ.Name())
			}
			var fields, required []string
			for f := range tc.typ.Fields() {
				name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
				fields = append(fields, name)
				if !strings.Contains(opts, "omitempty") {
					required = append(required, name)
				}
			}
			var props []string
			for name := range tc.schema["properties"].(map[string]any) {
				props = append(props, name)
			}
			var req []string
			for _, r := range tc.schema["required"].([]any) {
				req = append(req, r.(string))
			}
			slices.Sort(fields)
			slices.Sort(props)
			slices.Sort(required)
			slices.Sort(req)
			if !slices.Equal(fields, props) {
				t.Errorf("Go fields %v, schema properties %v", fields, props)
			}
			if !slices.Equal(required, req) {
				t.Errorf("Go non-omitempty fields %v, schema required %v", required, req)
			}
		})
	}
}
