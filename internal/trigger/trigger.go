package trigger

import (
	"errors"
	"fmt"
	"strings"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
)

// Trigger is one compiled trigger expression. The CEL program is planned
// once by Compile and reused by every Eval; a Trigger is immutable and safe
// for concurrent use.
type Trigger struct {
	text string
	prg  cel.Program
	lim  Limits
	// worst is the estimated worst-case cost over every valid event (at
	// most lim.Cost).
	worst uint64
	// entity is set by CompileEntity (variables entity and event); never
	// is NeverWithoutEvent.
	entity, never bool
}

// CompileError is a problem in a trigger expression. Line and Col are
// 1-based positions inside the expression text (Col counts Unicode code
// points). When the expression has several problems, the first is described
// by Line, Col and Msg and the others are listed in More.
type CompileError struct {
	Line, Col int
	Msg       string
	More      []CompileError
}

// Error renders every problem as "line:col: msg", one per line.
func (e *CompileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%d: %s", e.Line, e.Col, e.Msg)
	for _, m := range e.More {
		fmt.Fprintf(&b, "\n%d:%d: %s", m.Line, m.Col, m.Msg)
	}
	return b.String()
}

// All returns every problem, the first one included, without More.
func (e *CompileError) All() []CompileError {
	out := make([]CompileError, 0, 1+len(e.More))
	out = append(out, CompileError{Line: e.Line, Col: e.Col, Msg: e.Msg})
	return append(out, e.More...)
}

// Compile is CompileWith under the default Limits.
func Compile(expr string) (*Trigger, error) { return CompileWith(expr, Limits{}) }

// CompileWith parses and type-checks expr against the shared environment
// and plans its program, bounded at run time by lim (zero fields take the
// defaults). An empty (or all-whitespace) expression returns (nil, nil):
// the harness runs only manually. An expression whose type is not bool is
// an error naming its type, and so is one whose estimated worst-case cost
// over every valid event (the schema's maxItems and maxLength) exceeds
// lim.Cost. Problems in the expression
// are returned as *CompileError; a broken environment is a plain error.
func CompileWith(expr string, lim Limits) (*Trigger, error) {
	env, ast, err := checked(expr, Env)
	if ast == nil || err != nil {
		return nil, err
	}
	return planned(expr, lim, env, ast, schemaSizes)
}

// checked parses and type-checks expr over the environment newEnv returns:
// a nil ast for an empty (or all-whitespace) expression; problems in the
// expression are a *CompileError, a broken environment a plain error.
func checked(expr string, newEnv func() (*cel.Env, error)) (*cel.Env, *cel.Ast, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, nil, nil
	}
	env, err := newEnv()
	if err != nil {
		return nil, nil, err
	}
	ast, ce := condition(env, expr)
	if ce != nil {
		return nil, nil, ce
	}
	return env, ast, nil
}

// planned is the trigger of the checked ast: its worst-case cost over the
// variables' schema sizes refused above lim.Cost, its program planned
// (lim's zero fields take the defaults).
func planned(expr string, lim Limits, env *cel.Env, ast *cel.Ast, sizes func() (map[string]uint64, error)) (*Trigger, error) {
	lim = lim.withDefaults()
	worst, ce := checkCostOver(env, ast, lim.Cost, sizes)
	if ce != nil {
		return nil, ce
	}
	prg, err := env.Program(ast, programOptions(lim, hasComprehension(ast))...)
	if err != nil {
		return nil, &CompileError{Line: 1, Col: 1, Msg: err.Error()}
	}
	return &Trigger{text: expr, prg: prg, lim: lim, worst: worst}, nil
}

// programOptions plans the evaluation. Cost tracking (cel.CostLimit) is
// armed for every trigger that iterates: a comprehension is the only
// construct whose work grows with the event, so it is where an event
// beyond the schema's sizes (which callers do not evaluate:
// core.Engine.Decide takes validated events) could exceed the estimate.
// Without a comprehension the work is bounded by the estimate itself, and
// cost tracking, which makes a small evaluation several times slower, is
// left out.
func programOptions(lim Limits, loops bool) []cel.ProgramOption {
	opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}
	if loops {
		opts = append(opts, cel.CostLimit(lim.Cost))
	}
	return opts
}

// hasComprehension reports whether the checked expression iterates
// (all, exists, map, filter, ...).
func hasComprehension(a *cel.Ast) bool {
	nav := celast.NavigateAST(a.NativeRep())
	return len(celast.MatchDescendants(nav, celast.KindMatcher(celast.ComprehensionKind))) > 0
}

// String returns the expression text.
func (t *Trigger) String() string { return t.text }

// WorstCost is the trigger's estimated worst-case cost over every valid
// event, in CEL cost units (never above its Limits.Cost).
func (t *Trigger) WorstCost() uint64 { return t.worst }

// errNoEvent is returned when Eval is given an Input built from nil.
var errNoEvent = errors.New("trigger: no event to evaluate")

// Eval evaluates the trigger against one prepared event, within its cost
// limit. The result depends on the event alone: no clock is consulted. An
// evaluation error is returned with a false result: a *LimitError when the
// cost limit stopped it (which callers must treat as an error of the
// harness, never as no match), else an error of the expression on this
// event (for example an index out of range), which callers count as no
// match.
func (t *Trigger) Eval(in *Input) (bool, error) {
	if in == nil || in.act == nil {
		return false, errNoEvent
	}
	if in.entity != t.entity {
		return false, errInputKind
	}
	out, _, err := t.prg.Eval(in.act)
	if err = t.limitError(err); err != nil {
		return false, err
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("trigger: evaluation produced %s, not bool", out.Type().TypeName())
	}
	return b, nil
}

// condition parses and type-checks expr in env: a *CompileError for a
// problem in it, or for a type other than bool.
func condition(env *cel.Env, expr string) (*cel.Ast, *CompileError) {
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, fromIssues(expr, iss)
	}
	if !ast.OutputType().IsExactType(types.BoolType) {
		return nil, &CompileError{Line: 1, Col: 1,
			Msg: fmt.Sprintf("a trigger must be a condition (true or false), but this expression has type %s; "+
				"compare it with something, for example with ==", ast.OutputType())}
	}
	return ast, nil
}
