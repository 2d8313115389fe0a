// Package render draws the Grafana dashboard's panels as one PNG from
// scraped samples: each panel's queries evaluated with the promql subset
// at every sample, laid out by the panels' grid positions, drawn as line
// charts or stat tiles. It stands in for a Grafana screenshot where no
// Grafana runs (scripts/render-dashboard.sh).
package render

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"time"

	"github.com/fullsend-dev/fullsend/deploy/grafana/dashboard"
	"github.com/fullsend-dev/fullsend/deploy/grafana/promql"
)

// Line is one legend entry's values, one per sample time (NaN: no value).
type Line struct {
	Name   string
	Values []float64
}

// Panel is a panel with its evaluated data.
type Panel struct {
	*dashboard.Panel
	Times []time.Time
	Lines []Line
}

// Evaluate evaluates every panel's queries at each sample after the first
// (the first only serves as the base of rates), with the dashboard
// variables set to all values and $__rate_interval set to rateInterval.
func Evaluate(d *dashboard.Dashboard, samples []promql.Sample, rateInterval time.Duration) ([]Panel, error) {
	qs, err := d.Queries()
	if err != nil {
		return nil, err
	}
	env := &promql.Env{Samples: samples, Vars: map[string]string{"driver": ".*"}, RateInterval: rateInterval}
	var times []time.Time
	for _, s := range samples[1:] {
		times = append(times, s.T)
	}
	var out []Panel
	byPanel := map[*dashboard.Panel]int{}
	for _, q := range qs {
		k, ok := byPanel[q.Panel]
		if !ok {
			k = len(out)
			byPanel[q.Panel] = k
			out = append(out, Panel{Panel: q.Panel, Times: times})
		}
		lines, err := evalTarget(env, q, len(samples))
		if err != nil {
			return nil, fmt.Errorf("panel %q target %s: %w", q.Panel.Title, q.Target.RefID, err)
		}
		out[k].Lines = append(out[k].Lines, lines...)
	}
	return out, nil
}

// evalTarget returns one line per legend the target's results produce.
func evalTarget(env *promql.Env, q dashboard.Query, n int) ([]Line, error) {
	idx := map[string]int{}
	var lines []Line
	for i := 1; i < n; i++ {
		v, err := env.Eval(q.Node, i)
		if err != nil {
			return nil, err
		}
		points := v.Vec
		if v.Scalar {
			points = []promql.Point{{V: v.S}}
		}
		for _, p := range points {
			name := legend(q.Target.LegendFormat, p.Labels)
			k, ok := idx[name]
			if !ok {
				k = len(lines)
				idx[name] = k
				lines = append(lines, Line{Name: name, Values: nanSlice(n - 1)})
			}
			lines[k].Values[i-1] = p.V
		}
	}
	sort.SliceStable(lines, func(a, b int) bool { return lines[a].Name < lines[b].Name })
	return lines, nil
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

var legendVar = regexp.MustCompile(`\{\{\s*([a-zA-Z_]+)\s*\}\}`)

// legend fills {{label}} in format from labels.
func legend(format string, labels map[string]string) string {
	if format == "" {
		return fmt.Sprint(labels)
	}
	return legendVar.ReplaceAllStringFunc(format, func(m string) string {
		return labels[legendVar.FindStringSubmatch(m)[1]]
	})
}
