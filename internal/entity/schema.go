package entity

import (
	"bytes"
	_ "embed"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// SchemaID is the $id of the embedded NormalizedEntity v1 JSON Schema.
const SchemaID = "https://fullsend.dev/schemas/normalized-entity-v1.json"

//go:embed schema.json
var schemaJSON []byte

// Schema returns a copy of the embedded JSON Schema (draft 2020-12) for
// NormalizedEntity v1. It references NormalizedEvent v1's definitions
// (event.SchemaID) by relative URI.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// compiled returns the embedded schema compiled, with the event schema
// beside it, on first use.
var compiled = event.CompiledSchema("entity", SchemaID, schemaJSON)

// hints word the schema's conditional rules and patterns.
var hints = event.Hints{
	Conditional: map[string]event.Conditional{
		"/key":                        {Required: "required when source.system is jira", Forbidden: "allowed only when source.system is jira"},
		"/linked_change_proposal":     {Forbidden: "not allowed when kind is change_proposal"},
		"/state/change_proposal":      {Required: "required when kind is change_proposal", Forbidden: "allowed only when kind is change_proposal"},
		"/state/merged":               {Forbidden: "allowed only when kind is change_proposal"},
		"/activity/*/label":           {Required: "required when kind is label", Forbidden: "allowed only when kind is label"},
		"/activity/*/body":            {Required: "required when kind is body, comment or review", Forbidden: "not allowed when kind is label"},
		"/activity/*/review_state":    {Required: "required when kind is review", Forbidden: "allowed only when kind is review"},
		"/activity/*/command":         {Required: "required when instruction is set", Forbidden: "not allowed when kind is label"},
		"/activity/*/instruction":     {Forbidden: "not allowed when kind is label"},
		"/activity/*/truncated":       {Forbidden: "not allowed when kind is label"},
		"/activity/*/original_length": {Required: "required when truncated is true", Forbidden: "allowed only when truncated is true"},
	},
	Pattern: map[string]string{
		"/repo":                           "must be one or more '/'-separated segments of letters, digits, '.', '_' or '-'",
		"/key":                            "must be a Jira issue key such as PROJ-123",
		"/state/change_proposal/head_sha": "must be 40 or 64 hexadecimal digits",
		"/activity/*/command":             "must start with '/' and contain no whitespace",
	},
}
