package promql

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// FromText reads a scrape in the Prometheus text format as series:
// counters, gauges and untyped values under their name, histograms as
// their _bucket (with le), _sum and _count series. Summaries are skipped.
func FromText(r io.Reader) ([]Series, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("scrape: %w", err)
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Series
	for _, n := range names {
		for _, m := range fams[n].GetMetric() {
			out = append(out, flatten(n, m)...)
		}
	}
	return out, nil
}

func flatten(name string, m *dto.Metric) []Series {
	labels := func(extra ...string) map[string]string {
		l := map[string]string{}
		for _, lp := range m.GetLabel() {
			l[lp.GetName()] = lp.GetValue()
		}
		if len(extra) == 2 {
			l[extra[0]] = extra[1]
		}
		return l
	}
	switch {
	case m.Counter != nil:
		return []Series{{name, labels(), m.GetCounter().GetValue()}}
	case m.Gauge != nil:
		return []Series{{name, labels(), m.GetGauge().GetValue()}}
	case m.Untyped != nil:
		return []Series{{name, labels(), m.GetUntyped().GetValue()}}
	case m.Histogram != nil:
		h := m.GetHistogram()
		out := []Series{{name + "_sum", labels(), h.GetSampleSum()}, {name + "_count", labels(), float64(h.GetSampleCount())}}
		for _, b := range h.GetBucket() {
			if math.IsInf(b.GetUpperBound(), 1) {
				continue // written below from the count
			}
			out = append(out, Series{name + "_bucket", labels("le", formatLe(b.GetUpperBound())), float64(b.GetCumulativeCount())})
		}
		return append(out, Series{name + "_bucket", labels("le", "+Inf"), float64(h.GetSampleCount())})
	}
	return nil
}

func formatLe(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Series is one scraped sample: a metric name (histograms as their
// _bucket, _sum and _count series), its labels and value.
type Series struct {
	Name   string
	Labels map[string]string
	Value  float64
}
