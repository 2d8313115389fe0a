package jirapoll_test

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// BenchmarkCycleCost is prove-it 1 with its real timing: 50 candidates, 5
// with a new triggering comment, N=5, 50 ms emulated latency per call and
// the default 500–1500 ms lock jitter. Reports Jira calls and wall time
// per cycle (target: at most 30 calls, under 2.5 s).
func BenchmarkCycleCost(b *testing.B) {
	var calls, dispatched int
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := newEnv(b, jirasim.Options{Latency: func() time.Duration { return 50 * time.Millisecond }})
		costWorld(e)
		rec := &recorder{}
		p := e.poller(pollerOpts{out: rec, seed: uint64(i)})
		p.o.JitterMin, p.o.JitterMax = 500*time.Millisecond, 1500*time.Millisecond
		p.o.Sleep = nil // the jitter's real wait is part of the measured time
		e.sim.ResetCalls()
		b.StartTimer()
		start := time.Now()
		p.mustCycle()
		total += time.Since(start)
		b.StopTimer()
		calls += sumCalls(e.sim.Calls())
		dispatched += len(rec.all())
	}
	b.ReportMetric(float64(calls)/float64(b.N), "jira-calls/cycle")
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/cycle")
	b.ReportMetric(float64(dispatched)/float64(b.N), "runs/cycle")
}

// BenchmarkParallelPollersFullLatency is prove-it 2 at full scale: 4
// pollers, 100 issues, one triggering comment each over 20 cycles, random
// 20–200 ms latency per call, a 200 ms search lag and the default jitter.
// One iteration takes about a minute; run it with -benchtime=1x.
func BenchmarkParallelPollersFullLatency(b *testing.B) {
	for i := 0; i < b.N; i++ {
		res := runParallel(b, parallelCfg{pollers: 4, issues: 100, cycles: 20,
			latMin: 20 * time.Millisecond, latMax: 200 * time.Millisecond, searchLag: 200 * time.Millisecond,
			interval: 200 * time.Millisecond, jitter: 1500 * time.Millisecond, runFor: time.Second})
		b.ReportMetric(float64(res.duplicates), "duplicates")
		b.ReportMetric(float64(res.lost), "lost")
		b.ReportMetric(float64(res.dispatches), "dispatches")
		b.ReportMetric(float64(res.cycles), "poller-cycles")
		b.ReportMetric(res.elapsed.Seconds(), "s-elapsed")
	}
}
