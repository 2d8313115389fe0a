package fakeclock

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	c := New(t0)
	steps := []struct {
		name string
		do   func()
		want time.Time
	}{
		{"advance", func() { c.Advance(time.Minute) }, t0.Add(time.Minute)},
		{"tick", func() { c.Tick() }, t0.Add(time.Minute + time.Millisecond)},
		{"advance to the past is ignored", func() { c.AdvanceTo(t0) }, t0.Add(time.Minute + time.Millisecond)},
		{"advance to the future", func() { c.AdvanceTo(t0.Add(time.Hour)) }, t0.Add(time.Hour)},
		{"sleep passes at once", func() { _ = c.Sleep(context.Background(), time.Second) }, t0.Add(time.Hour + time.Second)},
		{"set goes back", func() { c.Set(t0) }, t0},
	}
	for _, st := range steps {
		st.do()
		if got := c.Now(); !got.Equal(st.want) {
			t.Fatalf("%s: now %v, want %v", st.name, got, st.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Second); err == nil {
		t.Error("Sleep on an ended context did not fail")
	}
}

func TestClockConcurrent(t *testing.T) {
	var c Clock
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.Tick()
			}
		})
	}
	wg.Wait()
	if got := c.Now().Sub(time.Time{}); got != 800*time.Millisecond {
		t.Fatalf("800 ticks moved the clock %v", got)
	}
}
