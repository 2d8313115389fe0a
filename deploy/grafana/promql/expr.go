// Package promql runs the Grafana dashboard's queries through the
// Prometheus project's own PromQL parser and engine
// (github.com/prometheus/prometheus/promql): the queries are parsed into
// its syntax tree, walked for the selectors they read, and evaluated by its
// engine over the samples scraped from a poller (FromText), stored in a
// TSDB of the same project. What is Grafana's and not PromQL's, the
// template variables ($driver, $__rate_interval), is expanded here first.
package promql

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// Expr is a parsed query.
type Expr = parser.Expr

// pql is the PromQL parser with Prometheus' default options.
var pql = parser.NewParser(parser.Options{})

// grafanaVar is a Grafana template variable: $name or ${name}.
var grafanaVar = regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// durationVars are Grafana's built-in variables that stand for a range;
// they default to CheckRange when parsing for the checks.
var durationVars = []string{"__rate_interval", "__interval", "__range"}

// CheckRange is the range the duration variables stand for when a query
// is only parsed (Parse), not evaluated.
const CheckRange = 5 * time.Minute

// Expand replaces the Grafana variables of expr: the duration variables
// by rangeOf (in PromQL's duration syntax), the others by vars[name] when
// vars has it. A variable left in a label value stays as written, which
// PromQL reads as a plain string.
func Expand(expr string, vars map[string]string, rangeOf time.Duration) string {
	return grafanaVar.ReplaceAllStringFunc(expr, func(m string) string {
		sub := grafanaVar.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if slices.Contains(durationVars, name) {
			return model.Duration(rangeOf).String()
		}
		if v, ok := vars[name]; ok {
			return v
		}
		return m
	})
}

// Parse parses a dashboard query with the duration variables set to
// CheckRange and the others left in place (a matcher on "$driver" keeps
// that value, which tells the checks that a variable selects it).
func Parse(expr string) (Expr, error) {
	e, err := pql.ParseExpr(Expand(expr, nil, CheckRange))
	if err != nil {
		return nil, fmt.Errorf("PromQL: %w", err)
	}
	return e, nil
}

// Matcher is a label matcher of a selector.
type Matcher = labels.Matcher

// Aggregation is an aggregation (sum, max…) above a selector.
type Aggregation = parser.AggregateExpr

// Walk calls f for every vector selector of e with the aggregations above
// it, outermost first.
func Walk(e Expr, f func(s *parser.VectorSelector, aggs []*Aggregation)) {
	parser.Inspect(e, func(n parser.Node, path []parser.Node) error {
		s, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		var aggs []*Aggregation
		for _, p := range path {
			if a, ok := p.(*Aggregation); ok {
				aggs = append(aggs, a)
			}
		}
		f(s, aggs)
		return nil
	})
}

// Keeps reports whether aggregation a keeps label in its result: listed
// in by (…), or not listed in without (…).
func Keeps(a *Aggregation, label string) bool {
	return slices.Contains(a.Grouping, label) != a.Without
}
