package status

import (
	"bytes"
	"io"
	"time"

	dto "github.com/prometheus/client_model/go"
)

func byteReader(b []byte) io.Reader { return bytes.NewReader(b) }

// matches reports whether m carries every label of want.
func matches(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}

// hasSeries reports whether f has a series matching want.
func hasSeries(f *dto.MetricFamily, want map[string]string) bool {
	for _, m := range f.GetMetric() {
		if matches(m, want) {
			return true
		}
	}
	return false
}

// sum adds the counter, gauge or untyped values of f's series matching want.
func sum(f *dto.MetricFamily, want map[string]string) float64 {
	var total float64
	for _, m := range f.GetMetric() {
		if !matches(m, want) {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Untyped != nil:
			total += m.GetUntyped().GetValue()
		}
	}
	return total
}

// histogram is f's histogram for driver, nil when absent.
func histogram(f *dto.MetricFamily, driver string) *dto.Histogram {
	for _, m := range f.GetMetric() {
		if matches(m, map[string]string{"driver": driver}) && m.Histogram != nil {
			return m.GetHistogram()
		}
	}
	return nil
}

// applyHealth adds the process's /healthz answer: the last cycle's time
// (from its age at now, rounded to the second) and error.
func (sc *scrape) applyHealth(p *Poller, now time.Time) {
	h := sc.health
	if h == nil {
		return
	}
	ok := h.OK
	p.Healthy = &ok
	p.LastError = h.LastError
	if h.LastCycleAgeSec <= 0 {
		return // no cycle ended yet
	}
	t := now.Add(-time.Duration(h.LastCycleAgeSec * float64(time.Second))).UTC().Round(time.Second)
	p.LastCycle = &t
	p.LastResult = "ok"
	if h.LastError != "" {
		p.LastResult = "error"
	}
}
