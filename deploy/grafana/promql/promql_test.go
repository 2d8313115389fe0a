package promql

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/promql/parser"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"driver": "a|b"}
	for _, tc := range []struct{ in, want string }{
		{`rate(x{d=~"$driver"}[$__rate_interval])`, `rate(x{d=~"a|b"}[2m])`},
		{`rate(x{d=~"${driver}"}[${__interval}])`, `rate(x{d=~"a|b"}[2m])`},
		{`x{d="$other"}`, `x{d="$other"}`},
		{`increase(x[$__range]) * 2`, `increase(x[2m]) * 2`},
		{`no variables`, `no variables`},
	} {
		if got := Expand(tc.in, vars, 2*time.Minute); got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Parse reads dashboard queries with the Prometheus parser: ranges from
// the duration variables, other variables kept in the label values, and
// the selectors with the aggregations above them.
func TestParseAndWalk(t *testing.T) {
	e, err := Parse(`sum by (le, driver) (rate(h_bucket{driver=~"$driver"}[$__rate_interval])) / ignoring(x) sum without (le) (g)`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	Walk(e, func(s *parser.VectorSelector, aggs []*Aggregation) {
		var keeps []string
		for _, l := range []string{"le", "driver", "api"} {
			if len(aggs) > 0 && Keeps(aggs[len(aggs)-1], l) {
				keeps = append(keeps, l)
			}
		}
		got = append(got, fmt.Sprintf("%s aggs=%d keeps=%v", s, len(aggs), keeps))
	})
	want := []string{`h_bucket{driver=~"$driver"} aggs=1 keeps=[le driver]`, `g aggs=1 keeps=[driver api]`}
	if !slices.Equal(got, want) {
		t.Errorf("Walk = %q, want %q", got, want)
	}
	var rng time.Duration
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if m, ok := n.(*parser.MatrixSelector); ok {
			rng = m.Range
		}
		return nil
	})
	if rng != CheckRange {
		t.Errorf("$__rate_interval parsed as %s, want %s", rng, CheckRange)
	}
	for _, bad := range []string{`sum(`, `rate(x[5m]`, `rates(x[5m])`, `x{a=~"("}`, `by (")")`} {
		if _, err := Parse(bad); err == nil || !strings.HasPrefix(err.Error(), "PromQL: ") {
			t.Errorf("Parse(%q) = %v, want a PromQL error", bad, err)
		}
	}
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ser(name string, v float64, labels ...string) Series {
	l := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	return Series{Name: name, Labels: l, Value: v}
}

// five scrapes a minute apart: counters growing steadily (60 and 30 a
// minute), a gauge falling by one a minute, and at the end a histogram.
func testSamples() []Sample {
	var out []Sample
	for i := range 5 {
		f := float64(i)
		s := Sample{T: t0.Add(time.Duration(i) * time.Minute), Series: []Series{
			ser("c", 60*f, "driver", "a", "r", "ok"), ser("c", 30*f, "driver", "b", "r", "ok"),
			ser("c", 6*f, "driver", "a", "r", "error"), ser("g", 5-f, "api", "jira")}}
		if i == 4 {
			s.Series = append(s.Series, ser("h_bucket", 2, "le", "1"), ser("h_bucket", 6, "le", "2"), ser("h_bucket", 8, "le", "+Inf"))
		}
		out = append(out, s)
	}
	return out
}

// The engine's results over the stored scrapes, values worked out by hand:
// a steady counter's rate is its slope whatever the extrapolation.
func TestStore(t *testing.T) {
	samples := testSamples()
	store, err := NewStore(samples)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	}()
	vars := map[string]string{"driver": "a|b"}
	t4 := samples[4].T
	for _, tc := range []struct {
		expr string
		at   time.Time
		want string
	}{
		{`sum by (driver) (rate(c{driver=~"$driver", r="ok"}[$__rate_interval]))`, t4, "driver=a:1 driver=b:0.5"},
		{`sum(increase(c{r="ok"}[2m]))`, t4, ":180"},
		{`sum by (r) (rate(c{driver!="b"}[2m]))`, t4, "r=error:0.1 r=ok:1"},
		{`min by (api) (g)`, t4, "api=jira:1"},
		{`time() - g`, samples[1].T, "api=jira:" + strconv.FormatInt(samples[1].T.Unix()-4, 10)},
		{`histogram_quantile(0.5, sum by (le) (h_bucket))`, t4, ":1.5"},
		{`histogram_quantile(0.9, sum by (le) (h_bucket))`, t4, ":2"},
		{`sum(c{r="error"}) / clamp_min(sum(c{r="ok"}), 1)`, t4, ":0.066667"},
		{`2 * 3 + 1`, t0, ":7"},
		{`absent_metric`, t4, ""},
	} {
		ps, err := store.Instant(context.Background(), Expand(tc.expr, vars, 2*time.Minute), tc.at)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if got := render(ps); got != tc.want {
			t.Errorf("%s at %s = %q, want %q", tc.expr, tc.at.Format(time.TimeOnly), got, tc.want)
		}
	}
	over, err := store.Over(context.Background(), `min(g)`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ps := range over {
		got = append(got, render(ps))
	}
	if want := []string{":4", ":3", ":2", ":1"}; !slices.Equal(got, want) {
		t.Errorf("Over = %q, want %q (every scrape after the first)", got, want)
	}
	if _, err := store.Instant(context.Background(), `c[5m]`, t4); err == nil {
		t.Error("a range vector result was accepted")
	}
}

func render(ps []Point) string {
	var parts []string
	for _, p := range Finite(ps) {
		var ls []string
		for k, v := range p.Labels {
			ls = append(ls, k+"="+v)
		}
		slices.Sort(ls)
		parts = append(parts, strings.Join(ls, ",")+":"+strconv.FormatFloat(math.Round(p.V*1e6)/1e6, 'f', -1, 64))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}
