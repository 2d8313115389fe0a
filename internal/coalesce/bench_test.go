package coalesce

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// event stands in for a real event: every submission carries a fresh
// 256-byte allocation, so a queue that kept events would grow with the
// event count.
type event struct {
	seq     int
	payload [248]byte
}

func keyNames(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("triage:acme/platform:jira:work_item:%d", i+1)
	}
	return keys
}

// gatedRunner blocks every run until gate is closed.
func gatedRunner(gate chan struct{}) RunFunc[string, *event] {
	return func(ctx context.Context, _ string, _ *event) error {
		select {
		case <-gate:
		case <-ctx.Done():
		}
		return nil
	}
}

// burst submits n events round-robin over keys and returns the peak heap
// growth over the starting heap, sampled every sampleEvery submissions.
func burst(q *Queue[string, *event], keys []string, n, sampleEvery int) (peak uint64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	for i := 0; i < n; i++ {
		q.Submit(keys[i%len(keys)], &event{seq: i})
		if i%sampleEvery == 0 || i == n-1 {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak {
				peak = ms.HeapAlloc - base
			}
		}
	}
	return peak
}

// TestBurstMemoryBounded: a burst of 1 000 000 events over 10 000 keys,
// while every run is blocked, must grow the heap by less than 50 MB (the
// events themselves would take 256 MB if the queue kept them), and the
// queue must hold exactly one pending item per key: the first event of
// each key is started or queued, the second event of each of the 4 active
// keys fills its pending slot, every other event coalesces.
func TestBurstMemoryBounded(t *testing.T) {
	const events, nkeys, limit = 1_000_000, 10_000, 50 << 20
	keys := keyNames(nkeys)
	gate := make(chan struct{})
	q := New(4, gatedRunner(gate))
	peak := burst(q, keys, events, 20_000)
	s := q.Stats()
	if s.Keys != nkeys || s.Active != 4 || s.Waiting != nkeys-4 {
		t.Errorf("stats after burst = %+v, want %d keys, 4 active", s, nkeys)
	}
	if want := uint64(events - nkeys - 4); s.Coalesced != want {
		t.Errorf("coalesced = %d, want %d", s.Coalesced, want)
	}
	t.Logf("peak heap growth for %d events over %d keys: %.1f MB", events, nkeys, float64(peak)/(1<<20))
	if peak >= limit {
		t.Errorf("peak heap growth %d bytes, want < %d", peak, limit)
	}
	close(gate)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := q.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if s := q.Stats(); s.Keys != 0 || s.Started != uint64(nkeys+4) {
		t.Fatalf("stats after drain = %+v", s)
	}
	// Once every key is done, the index and ring have shrunk back.
	q.mu.Lock()
	ringCap, indexPeak := len(q.ready.buf), q.peak
	q.mu.Unlock()
	if ringCap > 16 || indexPeak >= 1024 {
		t.Fatalf("after drain: ring capacity %d, index peak %d; want both small", ringCap, indexPeak)
	}
}

// BenchmarkSubmit measures submissions per second into a queue with
// 10 000 keys that all have work (steady state of a burst: every submit
// coalesces into an existing pending slot).
func BenchmarkSubmit(b *testing.B) {
	keys := keyNames(10_000)
	gate := make(chan struct{})
	q := New(4, func(ctx context.Context, _ string, _ int) error {
		<-gate
		return nil
	})
	for _, k := range keys {
		q.Submit(k, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q.Submit(keys[i%len(keys)], i)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submits/s")
	close(gate)
	_ = q.Drain(context.Background())
}

// BenchmarkSubmitParallel is BenchmarkSubmit from GOMAXPROCS goroutines
// while runs finish and restart (a no-op runner).
func BenchmarkSubmitParallel(b *testing.B) {
	keys := keyNames(10_000)
	q := New(4, func(context.Context, string, int) error { return nil })
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			q.Submit(keys[i%len(keys)], i)
			i += 7
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submits/s")
	_ = q.Drain(context.Background())
}

// BenchmarkBurstPeakHeap reports the peak heap growth (MB) of a
// 1 000 000-event burst over 10 000 keys with every run blocked.
func BenchmarkBurstPeakHeap(b *testing.B) {
	keys := keyNames(10_000)
	var worst uint64
	for i := 0; i < b.N; i++ {
		gate := make(chan struct{})
		q := New(4, gatedRunner(gate))
		if p := burst(q, keys, 1_000_000, 10_000); p > worst {
			worst = p
		}
		close(gate)
		_ = q.Drain(context.Background())
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
}
