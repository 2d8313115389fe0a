package event

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaID is the $id of the embedded NormalizedEvent v1 JSON Schema.
const SchemaID = "https://fullsend.dev/schemas/normalized-event-v1.json"

//go:embed schema.json
var schemaJSON []byte

// Schema returns a copy of the embedded JSON Schema (draft 2020-12) for
// NormalizedEvent v1, for tools that want to publish or reuse it.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// compiled returns the embedded schema, compiled on first use
// (CompiledSchema). The library counts string lengths in Unicode code
// points (runes), which is what docs/events.md specifies.
var compiled = CompiledSchema("event", SchemaID, schemaJSON)

// CompiledSchema returns the schema of a contract (noun: "event",
// "entity"), the embedded JSON Schema doc whose $id is id, compiled on
// first use as every contract's is: draft 2020-12 by default, format
// assertions (format "uri", "date-time") on, and NormalizedEvent v1's
// schema beside it under SchemaID, so that another contract's schema
// (NormalizedEntity) can reference its definitions ($defs: repo, id,
// url, jira_key, actor, …) instead of restating them.
func CompiledSchema(noun, id string, doc []byte) func() (*jsonschema.Schema, error) {
	type resource struct {
		noun, id string
		doc      []byte
	}
	rs := []resource{{"event", SchemaID, schemaJSON}}
	if id != SchemaID {
		rs = append(rs, resource{noun, id, doc})
	}
	return sync.OnceValues(func() (*jsonschema.Schema, error) {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		for _, r := range rs {
			d, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.doc))
			if err == nil {
				err = c.AddResource(r.id, d)
			}
			if err != nil {
				return nil, fmt.Errorf("embedded %s schema: %w", r.noun, err)
			}
		}
		s, err := c.Compile(id)
		if err != nil {
			return nil, fmt.Errorf("embedded %s schema: %w", noun, err)
		}
		return s, nil
	})
}
