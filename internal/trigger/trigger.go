package trigger

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// Trigger is one compiled trigger expression. The CEL program is planned
// once by Compile and reused by every Eval; a Trigger is immutable and safe
// for concurrent use.
type Trigger struct {
	text string
	prg  cel.Program
	lim  Limits
	// loops is set when the expression has a comprehension: only there
	// does cel-go check a context, and only there can an evaluation run
	// long. slow is set when, in addition, its estimated worst case could
	// come near the deadline (see mayNear): only then does Eval arm it.
	loops, slow bool
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
// exceeds CompileCostFactor times lim.Cost. Problems in the expression
// are returned as *CompileError; a broken environment is a plain error.
func CompileWith(expr string, lim Limits) (*Trigger, error) {
	lim = lim.withDefaults()
	if strings.TrimSpace(expr) == "" {
		return nil, nil
	}
	env, err := Env()
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, fromIssues(expr, iss)
	}
	if !ast.OutputType().IsExactType(types.BoolType) {
		return nil, &CompileError{Line: 1, Col: 1,
			Msg: fmt.Sprintf("a trigger must be a condition (true or false), but this expression has type %s; "+
				"compare it with something, for example with ==", ast.OutputType())}
	}
	worst, ce := checkCost(env, ast, lim.compileCost())
	if ce != nil {
		return nil, ce
	}
	prg, err := env.Program(ast, programOptions(lim, worst)...)
	if err != nil {
		return nil, &CompileError{Line: 1, Col: 1, Msg: err.Error()}
	}
	loops := hasComprehension(ast)
	return &Trigger{text: expr, prg: prg, lim: lim, loops: loops, slow: loops && lim.mayNear(worst)}, nil
}

// programOptions plans the evaluation. Cost tracking makes a simple
// evaluation several times slower, so it is enabled only for a trigger
// whose estimated worst case may exceed the runtime limit. The estimate
// holds for valid events (sizes as assumed in cost.go), which is what
// callers evaluate (core.Engine.Decide takes validated events only).
func programOptions(lim Limits, worst uint64) []cel.ProgramOption {
	opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize), cel.InterruptCheckFrequency(interruptCheckFrequency)}
	if worst > lim.Cost {
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

// errNoEvent is returned when Eval is given an Input built from nil.
var errNoEvent = errors.New("trigger: no event to evaluate")

// Eval evaluates the trigger against one prepared event, within its
// Limits. An evaluation error (for example an index out of range, or a
// *LimitError when a limit stopped it) is returned with a false result;
// callers count it as "no match" and log it.
func (t *Trigger) Eval(in *Input) (bool, error) {
	return t.EvalContext(context.Background(), in)
}

// EvalContext is Eval under ctx: a trigger with a comprehension also
// stops when ctx is done (between comprehension steps), with a
// *LimitError naming LimitTimeout when a deadline passed. Without a
// comprehension an evaluation is short and ctx is not consulted.
func (t *Trigger) EvalContext(ctx context.Context, in *Input) (bool, error) {
	if in == nil || in.act == nil {
		return false, errNoEvent
	}
	var out ref.Val
	var err error
	if t.loops && (t.slow || ctx.Done() != nil) {
		ctx, cancel := context.WithTimeout(ctx, t.lim.Timeout)
		out, _, err = t.prg.ContextEval(ctx, in.act)
		err = t.limitError(ctx, err) // before cancel, which would hide the cause
		cancel()
	} else {
		out, _, err = t.prg.Eval(in.act)
		err = t.limitError(ctx, err)
	}
	if err != nil {
		return false, err
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("trigger: evaluation produced %s, not bool", out.Type().TypeName())
	}
	return b, nil
}
