// Package promql parses and evaluates the small subset of PromQL the
// Grafana dashboard uses (deploy/grafana/fullsend.json): selectors with
// matchers and ranges, sum/min/max/avg by (...), rate, increase,
// histogram_quantile, clamp_min, time(), numbers and + - * /. The
// dashboard's test uses the parse tree to check every selector against
// the series fullsend exports; the dashboard renderer evaluates it over
// scraped samples. It is not Prometheus: a query outside the subset is an
// error, and a range reaches back over the samples there are.
package promql

import (
	"fmt"
	"strconv"
	"strings"
)

// Node is a parsed expression: *Number, *Selector, *Call, *Agg or *Binary.
type Node interface{ node() }

// Number is a literal.
type Number struct{ V float64 }

// Matcher is one label matcher; Op is =, !=, =~ or !~.
type Matcher struct{ Name, Op, Value string }

// Selector is a metric name with matchers and, in a range vector, the
// range as written (e.g. "5m" or "$__rate_interval").
type Selector struct {
	Metric   string
	Matchers []Matcher
	Range    string
}

// Call is a function call.
type Call struct {
	Func string
	Args []Node
}

// Agg is an aggregation over the labels By.
type Agg struct {
	Op   string
	By   []string
	Expr Node
}

// Binary is an arithmetic operation.
type Binary struct {
	Op   byte
	L, R Node
}

func (*Number) node()   {}
func (*Selector) node() {}
func (*Call) node()     {}
func (*Agg) node()      {}
func (*Binary) node()   {}

var (
	aggregators = map[string]bool{"sum": true, "min": true, "max": true, "avg": true}
	functions   = map[string]int{"rate": 1, "increase": 1, "histogram_quantile": 2, "clamp_min": 2, "time": 0}
)

// Parse parses expr.
func Parse(expr string) (Node, error) {
	p := &parser{toks: nil}
	if err := p.lex(expr); err != nil {
		return nil, err
	}
	n, err := p.expr()
	if err != nil {
		return nil, fmt.Errorf("%q: %w", expr, err)
	}
	if p.pos < len(p.toks) {
		return nil, fmt.Errorf("%q: unexpected %q", expr, p.toks[p.pos].text)
	}
	return n, nil
}

// Walk calls f for n and every node below it, parents first; aggs holds
// the aggregations enclosing the node, innermost last.
func Walk(n Node, f func(n Node, aggs []*Agg)) { walk(n, nil, f) }

func walk(n Node, aggs []*Agg, f func(Node, []*Agg)) {
	f(n, aggs)
	switch n := n.(type) {
	case *Call:
		for _, a := range n.Args {
			walk(a, aggs, f)
		}
	case *Agg:
		walk(n.Expr, append(aggs[:len(aggs):len(aggs)], n), f)
	case *Binary:
		walk(n.L, aggs, f)
		walk(n.R, aggs, f)
	}
}

type parser struct {
	toks []token
	pos  int
}

func (p *parser) expr() (Node, error) { return p.binary(0) }

// precedence of the binary operators: * and / bind tighter.
var precedence = map[string]int{"+": 1, "-": 1, "*": 2, "/": 2}

func (p *parser) binary(min int) (Node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		prec, ok := precedence[t.text]
		if t.kind != tokPunct || !ok || prec <= min {
			return l, nil
		}
		p.pos++
		r, err := p.binary(prec)
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: t.text[0], L: l, R: r}
	}
}

func (p *parser) unary() (Node, error) {
	t := p.next()
	switch {
	case t.kind == tokNumber:
		v, err := strconv.ParseFloat(t.text, 64)
		return &Number{V: v}, err
	case t.text == "(" && t.kind == tokPunct:
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		return n, p.expect(")")
	case t.kind != tokIdent:
		return nil, fmt.Errorf("unexpected %q", t.text)
	case aggregators[t.text]:
		return p.agg(t.text)
	case p.is("("):
		return p.call(t.text)
	}
	return p.selector(t.text)
}

func (p *parser) agg(op string) (Node, error) {
	a := &Agg{Op: op}
	var err error
	if p.peek().kind == tokIdent && p.peek().text == "by" {
		if a.By, err = p.labels(); err != nil {
			return nil, err
		}
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	if a.Expr, err = p.expr(); err != nil {
		return nil, err
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	if p.peek().kind == tokIdent && p.peek().text == "by" && a.By == nil {
		a.By, err = p.labels()
	}
	return a, err
}

// labels reads `by (a, b)`.
func (p *parser) labels() ([]string, error) {
	p.pos++ // by
	if err := p.expect("("); err != nil {
		return nil, err
	}
	out := []string{}
	for !p.is(")") {
		t := p.next()
		if t.kind != tokIdent {
			return nil, fmt.Errorf("by: label name expected, got %q", t.text)
		}
		out = append(out, t.text)
		if p.is(",") {
			p.pos++
		}
	}
	p.pos++
	return out, nil
}

func (p *parser) call(name string) (Node, error) {
	want, ok := functions[name]
	if !ok {
		return nil, fmt.Errorf("function %s is not in the supported subset", name)
	}
	p.pos++ // (
	c := &Call{Func: name}
	for !p.is(")") {
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, a)
		if p.is(",") {
			p.pos++
		} else if !p.is(")") {
			return nil, fmt.Errorf("%s: unexpected %q", name, p.peek().text)
		}
	}
	p.pos++
	if len(c.Args) != want {
		return nil, fmt.Errorf("%s takes %d arguments, got %d", name, want, len(c.Args))
	}
	return c, nil
}

func (p *parser) selector(name string) (Node, error) {
	s := &Selector{Metric: name}
	if p.is("{") {
		p.pos++
		for !p.is("}") {
			l, op, v := p.next(), p.next(), p.next()
			if l.kind != tokIdent || op.kind != tokOp || v.kind != tokString {
				return nil, fmt.Errorf("%s: bad matcher near %q", name, l.text)
			}
			s.Matchers = append(s.Matchers, Matcher{Name: l.text, Op: op.text, Value: v.text})
			if p.is(",") {
				p.pos++
			}
		}
		p.pos++
	}
	if p.peek().kind == tokRange {
		s.Range = p.next().text
	}
	return s, nil
}

func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{kind: tokEOF, text: "end of query"}
}

// is reports whether the next token is the punctuation s.
func (p *parser) is(s string) bool { t := p.peek(); return t.kind == tokPunct && t.text == s }

func (p *parser) next() token {
	t := p.peek()
	p.pos++
	return t
}

func (p *parser) expect(s string) error {
	if t := p.next(); t.text != s || t.kind != tokPunct {
		return fmt.Errorf("expected %q, got %q", s, t.text)
	}
	return nil
}

// String renders a selector as PromQL (for messages).
func (s *Selector) String() string {
	var b strings.Builder
	b.WriteString(s.Metric)
	if len(s.Matchers) > 0 {
		b.WriteByte('{')
		for i, m := range s.Matchers {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s%s%q", m.Name, m.Op, m.Value)
		}
		b.WriteByte('}')
	}
	return b.String()
}
