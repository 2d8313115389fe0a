// Package trigger compiles and evaluates harness triggers: CEL expressions
// over one variable, `event`, holding a NormalizedEvent (docs/triggers.md).
// The triggers of entity-source harnesses are compiled by CompileEntity
// over two: `entity` (a NormalizedEntity, always present) and `event`
// (nullable), with the guard rule of guard.go.
//
// The `event` variable is the Go struct event.Event exposed through cel-go's
// native type provider, with field names taken from the JSON tags. A trigger
// therefore reads exactly like the JSON document (`event.source.raw_type`,
// `event.actor.is_entity_author`), and a misspelled field is a compile error
// rather than a silent "false" at run time.
//
// Optional objects (nil pointers such as event.transition.comment on a
// label event) never make evaluation fail: has(event.transition.comment)
// is false, and reading a field through the absent object yields that
// field's zero value ("", 0, false). has() on a scalar field is false for
// its zero value. docs/triggers.md is the guide for trigger authors.
package trigger

import (
	"fmt"
	"reflect"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/ext"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// The CEL names of the contracts' struct types.
const (
	eventTypeName  = "event.Event"
	entityTypeName = "entity.Entity"
)

// Env returns the one CEL environment shared by every trigger. It is built
// on first use and never modified afterwards, so it is safe for concurrent
// use. It declares the variable `event` of type event.Event plus the string
// extension library (lowerAscii, split, …) and optional values.
var Env = sync.OnceValues(func() (*cel.Env, error) {
	return newEnv("CEL environment",
		ext.NativeTypes(reflect.TypeFor[event.Event](), ext.ParseStructTag("json")),
		cel.Variable("event", cel.ObjectType(eventTypeName)),
	)
})

// EntityEnv returns the CEL environment of entity-source harnesses: the
// variable `entity` (entity.Entity, always present), the variable
// `event` (event.Event or null) and the variable `now` (a timestamp: the
// evaluation's time on the tracker's clock, NewEntityInputAt), with Env's
// libraries. Field names are the
// JSON names of both contracts, checked at compile time; `event` is
// declared nullable, so `event == null` and `event != null` type-check
// while `event.repoo` is still an unknown field. Built once, never
// modified, safe for concurrent use.
var EntityEnv = sync.OnceValues(func() (*cel.Env, error) {
	return newEnv("entity CEL environment",
		ext.NativeTypes(reflect.TypeFor[event.Event](), reflect.TypeFor[entity.Entity](), ext.ParseStructTag("json")),
		cel.Variable("entity", cel.ObjectType(entityTypeName)),
		cel.Variable("event", cel.NullableType(cel.ObjectType(eventTypeName))),
		cel.Variable("now", cel.TimestampType),
	)
})

// newEnv builds a trigger environment, named what in its error: the types
// and variables of opts, then the libraries every trigger has, the string
// extension library and optional values.
func newEnv(what string, opts ...cel.EnvOption) (*cel.Env, error) {
	env, err := cel.NewEnv(append(opts, ext.Strings(), cel.OptionalTypes())...)
	if err != nil {
		return nil, fmt.Errorf("trigger: building the %s: %w", what, err)
	}
	return env, nil
}
