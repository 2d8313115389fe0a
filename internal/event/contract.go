package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Contract decodes and validates one versioned JSON contract
// (NormalizedEvent here, NormalizedEntity in package entity) the one way:
// the embedded schema, then Go decoding, then the rules the schema cannot
// express, every problem named by its JSON path in a *ValidationError.
type Contract[T any] struct {
	Noun   string                             // "event", "entity": in messages
	Schema func() (*jsonschema.Schema, error) // the compiled embedded schema
	Hints  Hints                              // wording of its conditional rules and patterns
	// Rules checks what the schema cannot say, skipping paths (and their
	// children) already reported.
	Rules func(v *T, skip PathSet) []Problem
}

// Decode validates data, one JSON document, and decodes it. Unknown fields
// anywhere are errors; no partial value is returned.
func (c Contract[T]) Decode(data []byte) (*T, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, newValidationError([]Problem{{Message: syntaxMessage(data, err)}})
	}
	ps, err := c.validateDoc(doc)
	if err != nil {
		return nil, err
	}
	// The document parsed above, so Unmarshal can only fail on a type
	// mismatch; it still fills every other field, so the rules below run.
	var v T
	uerr := json.Unmarshal(data, &v)
	seen := reported(ps)
	if uerr != nil {
		if p := unmarshalProblem(uerr, c.Noun); !seen.covers(p.Path) {
			ps = append(ps, p)
		}
	}
	ps = append(ps, c.Rules(&v, seen)...)
	if len(ps) > 0 {
		return nil, newValidationError(ps)
	}
	return &v, nil
}

// Validate checks a value built in Go exactly as Decode checks a document:
// a *ValidationError listing every problem, or nil.
func (c Contract[T]) Validate(v *T) error {
	if v == nil {
		return newValidationError([]Problem{{Message: c.Noun + " is missing (nil)"}})
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", c.Noun, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("re-read encoded %s: %w", c.Noun, err)
	}
	ps, err := c.validateDoc(doc)
	if err != nil {
		return err
	}
	ps = append(ps, c.Rules(v, reported(ps))...)
	if len(ps) > 0 {
		return newValidationError(ps)
	}
	return nil
}

// validateDoc runs the schema over a decoded JSON value. The error result
// is reserved for a broken embedded schema, never for a bad document.
func (c Contract[T]) validateDoc(doc any) ([]Problem, error) {
	sch, err := c.Schema()
	if err != nil {
		return nil, err
	}
	err = sch.Validate(doc)
	if err == nil {
		return nil, nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return nil, fmt.Errorf("validate %s: %w", c.Noun, err)
	}
	return schemaProblems(verr, c.Hints), nil
}
