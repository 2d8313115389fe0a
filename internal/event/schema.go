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
// (SchemaCompiler). The library counts string lengths in Unicode code
// points (runes), which is what docs/events.md specifies.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c, err := SchemaCompiler()
	if err != nil {
		return nil, err
	}
	s, err := c.Compile(SchemaID)
	if err != nil {
		return nil, fmt.Errorf("embedded event schema: %w", err)
	}
	return s, nil
})

// SchemaCompiler returns a compiler of the contracts' schemas holding the
// embedded NormalizedEvent v1 schema under SchemaID, so that another
// contract's schema (NormalizedEntity) can reference its definitions
// ($defs: repo, id, url, jira_key, actor, …) instead of restating them.
// Format assertions (format "uri", "date-time") are switched on, which
// draft 2020-12, its default draft, leaves off.
func SchemaCompiler() (*jsonschema.Compiler, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("embedded event schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, fmt.Errorf("embedded event schema: %w", err)
	}
	return c, nil
}
