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

	"github.com/fullsend-dev/fullsend/internal/event"
)

// eventTypeName is the CEL name of the event.Event struct type.
const eventTypeName = "event.Event"

var (
	envOnce   sync.Once
	sharedEnv *cel.Env
	envErr    error
)

// Env returns the one CEL environment shared by every trigger. It is built
// on first use and never modified afterwards, so it is safe for concurrent
// use. It declares the variable `event` of type event.Event plus the string
// extension library (lowerAscii, split, …) and optional values.
func Env() (*cel.Env, error) {
	envOnce.Do(func() {
		sharedEnv, envErr = cel.NewEnv(
			ext.NativeTypes(reflect.TypeFor[event.Event](), ext.ParseStructTag("json")),
			cel.Variable("event", cel.ObjectType(eventTypeName)),
			ext.Strings(),
			cel.OptionalTypes(),
		)
		if envErr != nil {
			envErr = fmt.Errorf("trigger: building the CEL environment: %w", envErr)
		}
	})
	return sharedEnv, envErr
}
