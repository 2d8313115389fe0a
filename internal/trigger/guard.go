package trigger

import (
	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
)

// The guard rule of entity triggers (docs/triggers.md, "The guard rule").
// `event` is null when an entity is evaluated without an event (scheduled
// discovery); reading a field of null is an evaluation error. So every
// use of `event` — a field select `event.f` (also inside has()), an
// optional select `event.?f`, `event` passed anywhere else — other than
// comparing it with null must be guarded. A use is guarded when it lies
//
//   - in a conjunct of an `&&` chain another conjunct of which is
//     `event != null` (either operand order; `!(event == null)` too);
//   - in a disjunct of an `||` chain another disjunct of which is
//     `event == null`;
//   - in the `then` branch of `event != null ? then : else`, or in the
//     `else` branch of `event == null ? then : else`.
//
// Comparing `event` itself with null is not a read. CEL's && and || are
// commutative (an error on one side is absorbed when the other side
// decides), so the guard may stand on either side.

// unguardedError returns the first unguarded read as a CompileError (the
// others in More), or nil.
func unguardedError(expr string, a *cel.Ast) *CompileError {
	na := a.NativeRep()
	g := guardWalk{refs: na.ReferenceMap()}
	g.walk(na.Expr())
	var out *CompileError
	for _, id := range g.bad {
		loc := na.SourceInfo().GetStartLocation(id)
		ce := withCaret(expr, offsetOf(expr, loc.Line(), loc.Column()+1),
			"event is null when the entity is evaluated without an event (scheduled discovery): "+
				"guard this read with `event != null && …` (docs/triggers.md, \"The guard rule\")")
		if out == nil {
			out = &ce
			continue
		}
		out.More = append(out.More, ce)
	}
	return out
}

// guardWalk collects the ids of the `event` identifiers read unguarded.
type guardWalk struct {
	refs map[int64]*celast.ReferenceInfo
	bad  []int64
	// shadow counts the enclosing comprehensions that name a variable
	// `event`, hiding the top-level one.
	shadow int
}

// isEvent reports whether e is the top-level variable `event` (not a
// comprehension variable of the same name).
func (g *guardWalk) isEvent(e celast.Expr) bool {
	if g.shadow > 0 || e.Kind() != celast.IdentKind || e.AsIdent() != "event" {
		return false
	}
	r, ok := g.refs[e.ID()]
	return ok && r.Name == "event"
}

// nullTest reports whether e compares `event` with null by op (== or !=),
// or negates the opposite test.
func (g *guardWalk) nullTest(e celast.Expr, op string) bool {
	if e.Kind() != celast.CallKind {
		return false
	}
	c := e.AsCall()
	if c.FunctionName() == operators.LogicalNot && len(c.Args()) == 1 {
		other := operators.Equals
		if op == operators.Equals {
			other = operators.NotEquals
		}
		return g.nullTest(c.Args()[0], other)
	}
	if c.FunctionName() != op || len(c.Args()) != 2 {
		return false
	}
	l, r := c.Args()[0], c.Args()[1]
	return g.isEvent(l) && isNull(r) || isNull(l) && g.isEvent(r)
}

func isNull(e celast.Expr) bool {
	return e.Kind() == celast.LiteralKind && e.AsLiteral() == types.NullValue
}

// chain flattens nested calls of op (&& or ||) into their operands.
func chain(e celast.Expr, op string) []celast.Expr {
	if e.Kind() != celast.CallKind || e.AsCall().FunctionName() != op {
		return []celast.Expr{e}
	}
	var out []celast.Expr
	for _, a := range e.AsCall().Args() {
		out = append(out, chain(a, op)...)
	}
	return out
}

// walk visits e; reads below a guard are not visited.
func (g *guardWalk) walk(e celast.Expr) {
	switch e.Kind() {
	case celast.IdentKind:
		if g.isEvent(e) {
			g.bad = append(g.bad, e.ID())
		}
	case celast.SelectKind:
		g.walk(e.AsSelect().Operand())
	case celast.CallKind:
		g.call(e)
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		g.walk(c.IterRange())
		g.walk(c.AccuInit())
		hides := c.IterVar() == "event" || c.IterVar2() == "event" || c.AccuVar() == "event"
		if hides {
			g.shadow++
		}
		for _, sub := range []celast.Expr{c.LoopCondition(), c.LoopStep(), c.Result()} {
			g.walk(sub)
		}
		if hides {
			g.shadow--
		}
	case celast.ListKind:
		for _, el := range e.AsList().Elements() {
			g.walk(el)
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			g.walk(en.AsMapEntry().Key())
			g.walk(en.AsMapEntry().Value())
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			g.walk(f.AsStructField().Value())
		}
	}
}

func (g *guardWalk) call(e celast.Expr) {
	c := e.AsCall()
	switch c.FunctionName() {
	case operators.LogicalAnd, operators.LogicalOr:
		guard := operators.NotEquals
		if c.FunctionName() == operators.LogicalOr {
			guard = operators.Equals
		}
		parts := chain(e, c.FunctionName())
		for _, p := range parts {
			if g.nullTest(p, guard) {
				return
			}
		}
		for _, p := range parts {
			g.walk(p)
		}
		return
	case operators.Conditional:
		cond, then, els := c.Args()[0], c.Args()[1], c.Args()[2]
		g.walk(cond)
		if !g.nullTest(cond, operators.NotEquals) {
			g.walk(then)
		}
		if !g.nullTest(cond, operators.Equals) {
			g.walk(els)
		}
		return
	case operators.Equals, operators.NotEquals:
		if g.nullTest(e, c.FunctionName()) {
			return // comparing event with null reads nothing
		}
	}
	if c.IsMemberFunction() {
		g.walk(c.Target())
	}
	for _, a := range c.Args() {
		g.walk(a)
	}
}

// neverWithoutEvent evaluates the checked expression with `event` null and
// `entity` unknown (partial evaluation): a definite false means that no
// entity can make it match without an event.
func neverWithoutEvent(env *cel.Env, a *cel.Ast) (bool, error) {
	prg, err := env.Program(a, cel.EvalOptions(cel.OptPartialEval))
	if err != nil {
		return false, err
	}
	act, err := cel.PartialVars(map[string]any{"event": types.NullValue}, cel.AttributePattern("entity"), cel.AttributePattern("now"))
	if err != nil {
		return false, err
	}
	out, _, err := prg.Eval(act)
	if err != nil {
		return false, nil // an error is not a definite false
	}
	b, ok := out.Value().(bool)
	return ok && !b, nil
}
