package trigger

import (
	"errors"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// CompileEntity is CompileWith for the trigger of an entity-source
// harness, over EntityEnv. Beyond CompileWith's checks it enforces the
// guard rule (Unguarded): every read of a field of `event` must sit where
// `event != null` has been established. It also records whether the
// trigger can never match without an event (NeverWithoutEvent).
func CompileEntity(expr string, lim Limits) (*Trigger, error) {
	env, ast, err := checked(expr, EntityEnv)
	if ast == nil || err != nil {
		return nil, err
	}
	if ce := unguardedError(expr, ast); ce != nil {
		return nil, ce
	}
	t, err := planned(expr, lim, env, ast, entitySchemaSizes)
	if err != nil {
		return nil, err
	}
	if t.never, err = neverWithoutEvent(env, ast); err != nil {
		return nil, &CompileError{Line: 1, Col: 1, Msg: err.Error()}
	}
	t.entity = true
	return t, nil
}

// IsEntity reports whether the trigger was compiled by CompileEntity: it
// evaluates an Input built by NewEntityInput, never one of NewInput.
func (t *Trigger) IsEntity() bool { return t.entity }

// NeverWithoutEvent reports, for an entity trigger, that it evaluates to
// false whenever `event` is null, whatever the entity: it will never fire
// from scheduled discovery. The check is conservative: it is true only
// when evaluation with a null event and an unknown entity yields false.
func (t *Trigger) NeverWithoutEvent() bool { return t.never }

// NewEntityInput prepares an entity and, when there is one, the event that
// prompted its evaluation, for entity triggers; ev nil means `event` is
// null. A nil entity yields an Input whose evaluation always fails.
func NewEntityInput(en *entity.Entity, ev *event.Event) *Input {
	return NewEntityInputAt(en, ev, time.Time{})
}

// NewEntityInputAt is NewEntityInput with `now` at the given time (the
// tracker's clock). A zero now (NewEntityInput) is NoClock,
// 1970-01-01T00:00:00Z: a condition such as `entity.state.updated < now -
// duration("168h")` is then false (and arithmetic on it stays in range),
// so that a caller without a clock never makes a time condition true.
func NewEntityInputAt(en *entity.Entity, ev *event.Event, now time.Time) *Input {
	if now.IsZero() {
		now = NoClock
	}
	if en == nil {
		return &Input{entity: true}
	}
	env, err := EntityEnv()
	if err != nil {
		return &Input{entity: true}
	}
	a := env.CELTypeAdapter()
	var evVal any = types.NullValue
	if ev != nil {
		evVal = a.NativeToValue(ev)
	}
	act, err := interpreter.NewActivation(map[string]any{"entity": a.NativeToValue(en), "event": evVal,
		"now": types.Timestamp{Time: now.UTC()}})
	if err != nil {
		return &Input{entity: true}
	}
	return &Input{act: act, entity: true}
}

// NoClock is `now` for a caller without a clock (NewEntityInputAt).
var NoClock = time.Unix(0, 0).UTC()

// errInputKind is returned when a trigger is given the other kind of Input.
var errInputKind = errors.New("trigger: an entity trigger needs NewEntityInput, an event trigger NewInput")
