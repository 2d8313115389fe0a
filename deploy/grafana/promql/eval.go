package promql

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Series is one scraped sample: a metric name (histograms as their
// _bucket, _sum and _count series), its labels and value.
type Series struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Sample is one scrape at time T.
type Sample struct {
	T      time.Time
	Series []Series
}

// Point is one element of an instant vector.
type Point struct {
	Labels map[string]string
	V      float64
}

// Value is an evaluation result: a scalar or an instant vector.
type Value struct {
	Scalar bool
	S      float64
	Vec    []Point
}

// Env is what an evaluation reads: the samples, the dashboard variables
// ($name in matcher values and ranges; a variable missing here matches
// anything) and the range $__rate_interval stands for.
type Env struct {
	Samples      []Sample
	Vars         map[string]string
	RateInterval time.Duration
}

// Eval evaluates n at samples[i].
func (e *Env) Eval(n Node, i int) (Value, error) {
	switch n := n.(type) {
	case *Number:
		return Value{Scalar: true, S: n.V}, nil
	case *Selector:
		if n.Range != "" {
			return Value{}, fmt.Errorf("%s[%s]: a range vector outside rate or increase", n, n.Range)
		}
		return Value{Vec: e.selectAt(n, i)}, nil
	case *Call:
		return e.call(n, i)
	case *Agg:
		v, err := e.Eval(n.Expr, i)
		if err != nil || v.Scalar {
			return Value{}, errOr(err, "%s over a scalar", n.Op)
		}
		return Value{Vec: aggregate(n.Op, n.By, v.Vec)}, nil
	case *Binary:
		l, err := e.Eval(n.L, i)
		if err != nil {
			return Value{}, err
		}
		r, err := e.Eval(n.R, i)
		if err != nil {
			return Value{}, err
		}
		return binary(n.Op, l, r), nil
	}
	return Value{}, fmt.Errorf("unknown node %T", n)
}

func errOr(err error, format string, args ...any) error {
	if err != nil {
		return err
	}
	return fmt.Errorf(format, args...)
}

func (e *Env) call(c *Call, i int) (Value, error) {
	switch c.Func {
	case "time":
		return Value{Scalar: true, S: float64(e.Samples[i].T.Unix())}, nil
	case "rate", "increase":
		s, ok := c.Args[0].(*Selector)
		if !ok || s.Range == "" {
			return Value{}, fmt.Errorf("%s needs a range selector", c.Func)
		}
		return e.delta(s, i, c.Func == "rate")
	}
	a, err := e.Eval(c.Args[0], i)
	if err != nil {
		return Value{}, err
	}
	b, err := e.Eval(c.Args[1], i)
	if err != nil {
		return Value{}, err
	}
	if c.Func == "clamp_min" {
		return binary('>', a, b), nil
	}
	if !a.Scalar || b.Scalar {
		return Value{}, fmt.Errorf("histogram_quantile(scalar, vector)")
	}
	return Value{Vec: quantile(a.S, b.Vec)}, nil
}

// delta is increase (or rate) of the counters of s between samples[i] and
// each series' oldest sample within s's range before it (no
// extrapolation to the range's edges).
func (e *Env) delta(s *Selector, i int, perSecond bool) (Value, error) {
	d, err := e.rangeOf(s.Range)
	if err != nil {
		return Value{}, err
	}
	j := i
	for j > 0 && e.Samples[i].T.Sub(e.Samples[j-1].T) <= d {
		j--
	}
	if j == i {
		return Value{}, nil
	}
	type first struct {
		v float64
		t time.Time
	}
	base := map[string]first{}
	for ; j < i; j++ {
		for _, p := range e.selectAt(s, j) {
			if _, ok := base[key(p.Labels, "")]; !ok {
				base[key(p.Labels, "")] = first{p.V, e.Samples[j].T}
			}
		}
	}
	var out []Point
	for _, p := range e.selectAt(s, i) {
		b, ok := base[key(p.Labels, "")]
		if !ok {
			continue
		}
		v := max(p.V-b.v, 0)
		if perSecond {
			v /= e.Samples[i].T.Sub(b.t).Seconds()
		}
		out = append(out, Point{Labels: p.Labels, V: v})
	}
	return Value{Vec: out}, nil
}

func (e *Env) rangeOf(r string) (time.Duration, error) {
	if r == "$__rate_interval" || r == "${__rate_interval}" {
		return e.RateInterval, nil
	}
	d, err := time.ParseDuration(r)
	if err != nil {
		return 0, fmt.Errorf("range [%s]: %w", r, err)
	}
	return d, nil
}

// selectAt returns the series of samples[i] that s selects, with their
// labels (the metric name is not a label here).
func (e *Env) selectAt(s *Selector, i int) []Point {
	var out []Point
	for _, ser := range e.Samples[i].Series {
		if ser.Name == s.Metric && e.matches(s.Matchers, ser.Labels) {
			out = append(out, Point{Labels: ser.Labels, V: ser.Value})
		}
	}
	return out
}

func (e *Env) matches(ms []Matcher, labels map[string]string) bool {
	for _, m := range ms {
		want, ok := e.expand(m.Value)
		if !ok {
			continue
		}
		var hit bool
		switch m.Op {
		case "=", "!=":
			hit = labels[m.Name] == want
		default:
			re, err := regexp.Compile("^(?:" + want + ")$")
			hit = err == nil && re.MatchString(labels[m.Name])
		}
		if hit == strings.HasPrefix(m.Op, "!") {
			return false
		}
	}
	return true
}

// expand substitutes the dashboard variables in v; false when v uses one
// the Env does not set (it then matches anything).
func (e *Env) expand(v string) (string, bool) {
	if !strings.Contains(v, "$") {
		return v, true
	}
	for name, val := range e.Vars {
		v = strings.ReplaceAll(strings.ReplaceAll(v, "${"+name+"}", val), "$"+name, val)
	}
	return v, !strings.Contains(v, "$")
}

// key identifies a label set, without the label drop.
func key(labels map[string]string, drop string) string {
	names := make([]string, 0, len(labels))
	for n := range labels {
		if n != drop {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + "=" + labels[n] + ",")
	}
	return b.String()
}

func aggregate(op string, by []string, vec []Point) []Point {
	groups := map[string]*Point{}
	counts := map[string]int{}
	var order []string
	for _, p := range vec {
		labels := map[string]string{}
		for _, l := range by {
			if v, ok := p.Labels[l]; ok {
				labels[l] = v
			}
		}
		k := key(labels, "")
		g, ok := groups[k]
		if !ok {
			g = &Point{Labels: labels, V: p.V}
			groups[k] = g
			order = append(order, k)
			counts[k] = 1
			continue
		}
		counts[k]++
		switch op {
		case "sum", "avg":
			g.V += p.V
		case "max":
			g.V = max(g.V, p.V)
		case "min":
			g.V = min(g.V, p.V)
		}
	}
	out := make([]Point, 0, len(order))
	for _, k := range order {
		if op == "avg" {
			groups[k].V /= float64(counts[k])
		}
		out = append(out, *groups[k])
	}
	return out
}

// binary applies op between a and b; '>' is clamp_min's max(a, b).
func binary(op byte, a, b Value) Value {
	f := func(x, y float64) float64 {
		switch op {
		case '+':
			return x + y
		case '-':
			return x - y
		case '*':
			return x * y
		case '/':
			return x / y
		}
		return max(x, y)
	}
	switch {
	case a.Scalar && b.Scalar:
		return Value{Scalar: true, S: f(a.S, b.S)}
	case b.Scalar:
		return Value{Vec: mapVec(a.Vec, func(x float64) float64 { return f(x, b.S) })}
	case a.Scalar:
		return Value{Vec: mapVec(b.Vec, func(y float64) float64 { return f(a.S, y) })}
	}
	right := map[string]float64{}
	for _, p := range b.Vec {
		right[key(p.Labels, "")] = p.V
	}
	var out []Point
	for _, p := range a.Vec {
		if y, ok := right[key(p.Labels, "")]; ok {
			out = append(out, Point{Labels: p.Labels, V: f(p.V, y)})
		}
	}
	return Value{Vec: out}
}

func mapVec(vec []Point, f func(float64) float64) []Point {
	out := make([]Point, len(vec))
	for i, p := range vec {
		out[i] = Point{Labels: p.Labels, V: f(p.V)}
	}
	return out
}
