package status

import (
	"strings"
	"testing"
)

// FuzzParseScrape: any /metrics and /healthz body is read and rendered
// without a panic, and gives either a poller row or a note saying why not.
func FuzzParseScrape(f *testing.F) {
	f.Add(pollerMetrics, pollerHealth)
	f.Add("fullsend_poll_cycles_total{driver=\"jira-poll\",result=\"ok\"} -3\n", `{"last_cycle_age_seconds":-1e308}`)
	f.Add("# TYPE x histogram\nx_count 0\n", "null")
	f.Fuzz(func(t *testing.T, m, h string) {
		p, note := parseScrape("http://poller.test/metrics", strings.NewReader(m), strings.NewReader(h)).poller("jira-poll", t0)
		if p == nil && note == "" {
			t.Fatal("neither a poller nor a note")
		}
		if p != nil {
			_ = renderTable(&strings.Builder{}, &Report{At: t0, Inputs: []Input{{Poller: p}}})
		}
	})
}
