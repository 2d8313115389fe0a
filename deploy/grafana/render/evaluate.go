// Package render draws the Grafana dashboard's panels as one PNG from
// scraped samples: each panel's queries evaluated by the Prometheus engine
// (package promql) at every sample, laid out by the panels' grid positions, drawn as line
// charts or stat tiles. It stands in for a Grafana screenshot where no
// Grafana runs (scripts/render-dashboard.sh).
package render

import (
	"context"
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

// Evaluate evaluates every panel's queries with the Prometheus engine at
// each sample after the first (the first only serves as the base of
// rates), with the dashboard variables set to all values and
// $__rate_interval set to rateInterval.
func Evaluate(d *dashboard.Dashboard, samples []promql.Sample, rateInterval time.Duration) ([]Panel, error) {
	qs, err := d.Queries()
	if err != nil {
		return nil, err
	}
	store, err := promql.NewStore(samples)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	vars := map[string]string{"driver": ".*"}
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
		results, err := store.Over(context.Background(), promql.Expand(q.Target.Expr, vars, rateInterval))
		if err != nil {
			return nil, fmt.Errorf("panel %q target %s: %w", q.Panel.Title, q.Target.RefID, err)
		}
		out[k].Lines = append(out[k].Lines, lines(q.Target.LegendFormat, results)...)
	}
	return out, nil
}

// lines turns the results at each time into one line per legend.
func lines(legendFormat string, results [][]promql.Point) []Line {
	idx := map[string]int{}
	var out []Line
	for i, points := range results {
		for _, p := range promql.Finite(points) {
			name := legend(legendFormat, p.Labels)
			k, ok := idx[name]
			if !ok {
				k = len(out)
				idx[name] = k
				out = append(out, Line{Name: name, Values: nanSlice(len(results))})
			}
			out[k].Values[i] = p.V
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
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
