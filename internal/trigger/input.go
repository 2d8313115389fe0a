package trigger

import (
	"cel.dev/cel-go/interpreter"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Input is one event prepared for evaluation. Build it once per event with
// NewInput and pass it to every trigger: the conversion of the Go struct to
// a CEL value happens here, not in each Eval. An Input is read-only after
// construction and safe to share between goroutines. The event it wraps
// must not be modified while the Input is in use.
type Input struct {
	act interpreter.Activation
	// entity is set by NewEntityInput: the variables are entity and event.
	entity bool
}

// NewInput prepares ev for evaluation. A nil event yields an Input whose
// evaluation always fails with an error.
func NewInput(ev *event.Event) *Input {
	if ev == nil {
		return &Input{}
	}
	env, err := Env()
	if err != nil {
		return &Input{}
	}
	val := env.CELTypeAdapter().NativeToValue(ev)
	act, err := interpreter.NewActivation(map[string]any{"event": val})
	if err != nil {
		return &Input{}
	}
	return &Input{act: act}
}
