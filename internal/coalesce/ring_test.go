package coalesce

import "testing"

func TestRingFIFOAcrossGrowthAndWrap(t *testing.T) {
	var r ring[int]
	next, want := 0, 0
	// Interleave pushes and pops so the head wraps around while growing.
	for round := 0; round < 50; round++ {
		for i := 0; i < 7; i++ {
			r.push(next)
			next++
		}
		for i := 0; i < 5; i++ {
			got, ok := r.pop()
			if !ok || got != want {
				t.Fatalf("pop = %d, %v; want %d", got, ok, want)
			}
			want++
		}
	}
	if r.len() != next-want {
		t.Fatalf("len = %d, want %d", r.len(), next-want)
	}
	grown := len(r.buf)
	for r.len() > 0 {
		got, _ := r.pop()
		if got != want {
			t.Fatalf("pop = %d, want %d", got, want)
		}
		want++
		r.shrink()
	}
	if _, ok := r.pop(); ok {
		t.Fatal("pop on an empty ring succeeded")
	}
	if len(r.buf) >= grown || len(r.buf) > 16 {
		t.Fatalf("buffer did not shrink: %d (was %d)", len(r.buf), grown)
	}
}
