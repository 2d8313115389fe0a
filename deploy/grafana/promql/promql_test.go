package promql

import (
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// selectors lists the selectors of expr as strings, with the by-labels
// of their innermost aggregation.
func selectors(t *testing.T, expr string) []string {
	t.Helper()
	n, err := Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	Walk(n, func(n Node, aggs []*Agg) {
		if s, ok := n.(*Selector); ok {
			by := ""
			if len(aggs) > 0 {
				by = " by " + strings.Join(aggs[len(aggs)-1].By, ",")
			}
			out = append(out, s.String()+"["+s.Range+"]"+by)
		}
	})
	return out
}

func TestParse(t *testing.T) {
	for expr, want := range map[string]string{
		`sum by (driver, result) (rate(fullsend_poll_cycles_total{driver=~"$driver"}[$__rate_interval]))`: `fullsend_poll_cycles_total{driver=~"$driver"}[$__rate_interval] by driver,result`,
		`time() - max(fullsend_poll_last_success_timestamp_seconds) by (driver)`:                          `fullsend_poll_last_success_timestamp_seconds[] by driver`,
		`histogram_quantile(0.95, sum by (le) (rate(x_bucket{a="b",c!="d"}[5m])))`:                        `x_bucket{a="b",c!="d"}[5m] by le`,
		`a / clamp_min(b, 1) * 2`: `a[]|b[]`,
		`fullsend_api_requests_total{endpoint="GET /rest/api/3/issue/{issueIdOrKey}"}`: `fullsend_api_requests_total{endpoint="GET /rest/api/3/issue/{issueIdOrKey}"}[]`,
	} {
		if got := strings.Join(selectors(t, expr), "|"); got != want {
			t.Errorf("%s:\n got %s\nwant %s", expr, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for expr, want := range map[string]string{
		`label_replace(x, "a", "b", "c", "d")`: "not in the supported subset",
		`sum(x`:                                `expected ")"`,
		`rate(x[5m]`:                           `unexpected "end of query"`,
		`x{a="b}`:                              "unterminated",
		`x{a}`:                                 "bad matcher",
		`x y`:                                  `unexpected "y"`,
		`histogram_quantile(0.9)`:              "takes 2 arguments",
		`x # y`:                                "unexpected",
	} {
		if _, err := Parse(expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", expr, err, want)
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

// three scrapes a minute apart: a counter for two drivers, a histogram
// and a gauge.
var samples = []Sample{
	{T: t0, Series: []Series{ser("c", 0, "driver", "a", "r", "ok"), ser("c", 10, "driver", "b", "r", "ok")}},
	{T: t0.Add(time.Minute), Series: []Series{ser("c", 60, "driver", "a", "r", "ok"), ser("c", 10, "driver", "b", "r", "ok"),
		ser("c", 6, "driver", "a", "r", "error"), ser("g", 5, "api", "jira")}},
	{T: t0.Add(2 * time.Minute), Series: []Series{ser("c", 120, "driver", "a", "r", "ok"), ser("c", 40, "driver", "b", "r", "ok"),
		ser("c", 12, "driver", "a", "r", "error"), ser("g", 3, "api", "jira"),
		ser("h_bucket", 2, "le", "1"), ser("h_bucket", 6, "le", "2"), ser("h_bucket", 8, "le", "+Inf")}},
}

func TestEval(t *testing.T) {
	env := &Env{Samples: samples, Vars: map[string]string{"driver": "a|b"}, RateInterval: time.Minute}
	for _, tc := range []struct {
		expr string
		at   int
		want string
	}{
		{`sum by (driver) (rate(c{driver=~"$driver"}[$__rate_interval]))`, 2, "driver=a,:1.1 driver=b,:0.5"},
		{`sum(increase(c{r="ok"}[2m]))`, 2, ":150"},
		{`sum(increase(c[2m]))`, 0, ""},
		{`sum(increase(c{r="error"}[2m]))`, 2, ":6"},            // from the series' first sample in range
		{`sum by (r) (rate(c{driver!="b"}[1m]))`, 1, "r=ok,:1"}, // the error series is new at 1
		{`min by (api) (g)`, 2, "api=jira,:3"},
		{`time() - g`, 1, "api=jira,:" + "1767225655"},
		{`histogram_quantile(0.5, sum by (le) (h_bucket))`, 2, ":1.5"},
		{`histogram_quantile(0.9, sum by (le) (h_bucket))`, 2, ":2"},
		{`sum(c{r="error"}) / clamp_min(sum(c{r="ok"}), 1)`, 2, ":0.075"},
		{`2 * 3 + 1`, 0, "7"},
	} {
		n, err := Parse(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		v, err := env.Eval(n, tc.at)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if got := render(v); got != tc.want {
			t.Errorf("%s at %d = %q, want %q", tc.expr, tc.at, got, tc.want)
		}
	}
}

func render(v Value) string {
	if v.Scalar {
		return trim(v.S)
	}
	var parts []string
	for _, p := range v.Vec {
		parts = append(parts, key(p.Labels, "")+":"+trim(p.V))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func trim(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
