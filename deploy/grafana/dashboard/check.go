package dashboard

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/fullsend-dev/fullsend/deploy/grafana/promql"
)

// Exported indexes scraped series by name: the label sets each has.
type Exported map[string][]map[string]string

// Index builds an Exported from a scrape.
func Index(series []promql.Series) Exported {
	e := Exported{}
	for _, s := range series {
		e[s.Name] = append(e[s.Name], s.Labels)
	}
	return e
}

// hasLabel reports whether some series of metric has the label name, and
// value (if not empty) among its values.
func (e Exported) hasLabel(metric, name, value string) bool {
	for _, l := range e[metric] {
		if v, ok := l[name]; ok && (value == "" || v == value) {
			return true
		}
	}
	return false
}

// plainAlternatives are regex matcher values that only list words.
var plainAlternatives = regexp.MustCompile(`^[A-Za-z0-9_-]+(\|[A-Za-z0-9_-]+)*$`)

// CheckSeries reports every selector of qs that names a metric e lacks, a
// label none of its series has, or a literal label value none has, and
// every by-label of an aggregation that the metrics below it lack.
func CheckSeries(qs []Query, e Exported) []error {
	var errs []error
	for _, q := range qs {
		where := fmt.Sprintf("panel %q target %s", q.Panel.Title, q.Target.RefID)
		promql.Walk(q.Node, func(s *parser.VectorSelector, aggs []*promql.Aggregation) {
			name, ok := metricName(s)
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("%s: %s selects metrics by a pattern; name the metric", where, s))
				return
			case len(e[name]) == 0:
				errs = append(errs, fmt.Errorf("%s: fullsend does not export %q", where, name))
				return
			}
			for _, m := range s.LabelMatchers {
				if m.Name == labels.MetricName {
					continue
				}
				for _, v := range literalValues(m) {
					switch {
					case v == "" && !e.hasLabel(name, m.Name, ""):
						errs = append(errs, fmt.Errorf("%s: %s has no label %s", where, name, m.Name))
					case v != "" && !e.hasLabel(name, m.Name, v):
						errs = append(errs, fmt.Errorf("%s: %s has no series with %s=%q", where, name, m.Name, v))
					}
				}
			}
			for _, a := range aggs {
				for _, l := range a.Grouping {
					if !e.hasLabel(name, l, "") {
						errs = append(errs, fmt.Errorf("%s: %s %s (%s): %s has no label %s", where, a.Op, grouping(a), l, name, l))
					}
				}
			}
		})
	}
	return errs
}

// metricName is the metric a selector reads: its name, or the value of an
// equality matcher on __name__; ok is false when a pattern picks it.
func metricName(s *parser.VectorSelector) (name string, ok bool) {
	if s.Name != "" {
		return s.Name, true
	}
	for _, m := range s.LabelMatchers {
		if m.Name == labels.MetricName {
			return m.Value, m.Type == labels.MatchEqual
		}
	}
	return "", false
}

func grouping(a *promql.Aggregation) string {
	if a.Without {
		return "without"
	}
	return "by"
}

// literalValues are the label values a matcher names: its value for = and
// !=, the alternatives of a plain =~ or !~, and for a dashboard variable
// only the label ("" value).
func literalValues(m *promql.Matcher) []string {
	switch {
	case strings.Contains(m.Value, "$"):
		return []string{""}
	case m.Type == labels.MatchEqual || m.Type == labels.MatchNotEqual:
		return []string{m.Value}
	case plainAlternatives.MatchString(m.Value):
		return strings.Split(m.Value, "|")
	}
	return []string{""}
}

// Shows reports whether some query of qs shows metric's series with
// label=value on its own: a selector of metric whose matcher on label
// selects value, or without such a matcher under aggregations that keep
// label (a matcher on a dashboard variable selects every value). An empty
// label asks only for the metric.
func Shows(qs []Query, metric, label, value string) bool {
	found := false
	for _, q := range qs {
		promql.Walk(q.Node, func(s *parser.VectorSelector, aggs []*promql.Aggregation) {
			if name, _ := metricName(s); name == metric && (label == "" || selects(s, aggs, label, value)) {
				found = true
			}
		})
	}
	return found
}

func selects(s *parser.VectorSelector, aggs []*promql.Aggregation, label, value string) bool {
	for _, m := range s.LabelMatchers {
		if m.Name == label && !strings.Contains(m.Value, "$") { // a variable may select all
			for _, v := range literalValues(m) {
				if v == value && (m.Type == labels.MatchEqual || m.Type == labels.MatchRegexp) {
					return true
				}
			}
			return false
		}
	}
	for _, a := range aggs {
		if !promql.Keeps(a, label) {
			return false
		}
	}
	return true
}
