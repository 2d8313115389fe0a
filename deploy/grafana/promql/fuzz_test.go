package promql

import "testing"

// Parse never panics, and what it accepts evaluates without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`sum by (driver, result) (rate(fullsend_poll_cycles_total{driver=~"$driver"}[$__rate_interval]))`,
		`histogram_quantile(0.95, sum by (le) (rate(h_bucket[5m])))`,
		`time() - max(g) by (driver)`, `a / clamp_min(b, 1)`, `x{a!~"b|c"}`, `by (")")`, `sum(`,
	} {
		f.Add(s)
	}
	env := &Env{Samples: samples, Vars: map[string]string{"driver": ".*"}}
	f.Fuzz(func(t *testing.T, expr string) {
		n, err := Parse(expr)
		if err != nil {
			return
		}
		_, _ = env.Eval(n, len(samples)-1)
	})
}
