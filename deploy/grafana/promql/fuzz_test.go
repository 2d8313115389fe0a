package promql

import (
	"strings"
	"testing"
	"time"
)

// Expand and Parse never panic on a dashboard query, and Expand leaves
// text without a variable alone.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`sum by (driver, result) (rate(fullsend_poll_cycles_total{driver=~"$driver"}[$__rate_interval]))`,
		`histogram_quantile(0.95, sum by (le) (rate(h_bucket[${__rate_interval}])))`,
		`time() - max(g) by (driver)`, `a / clamp_min(b, 1)`, `x{a!~"b|c"}`, `by (")")`, `sum(`, `$`, `${`, `$_x}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		out := Expand(expr, map[string]string{"driver": ".*"}, time.Minute)
		if !strings.Contains(expr, "$") && out != expr {
			t.Fatalf("Expand(%q) = %q without a variable", expr, out)
		}
		_, _ = Parse(expr)
	})
}
