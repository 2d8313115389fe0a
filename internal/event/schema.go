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

var (
	compileOnce    sync.Once
	compiledSchema *jsonschema.Schema
	compileErr     error
)

// compiled returns the embedded schema, compiled on first use. Format
// assertions (format "uri") are switched on, which draft 2020-12 leaves off
// by default. The library counts string lengths in Unicode code points
// (runes), which is what docs/events.md specifies.
func compiled() (*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			compileErr = fmt.Errorf("embedded event schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource(SchemaID, doc); err != nil {
			compileErr = fmt.Errorf("embedded event schema: %w", err)
			return
		}
		compiledSchema, compileErr = c.Compile(SchemaID)
		if compileErr != nil {
			compileErr = fmt.Errorf("embedded event schema: %w", compileErr)
		}
	})
	return compiledSchema, compileErr
}

// AddSchema adds the embedded NormalizedEvent v1 schema to c under
// SchemaID, so that another contract's schema (NormalizedEntity) can
// reference its definitions ($defs: repo, id, url, jira_key, actor, …)
// instead of restating them.
func AddSchema(c *jsonschema.Compiler) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return fmt.Errorf("embedded event schema: %w", err)
	}
	return c.AddResource(SchemaID, doc)
}
