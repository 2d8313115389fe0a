package core

import (
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/scope"
)

func TestBreakerSlidingHour(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	b := NewBreaker(3)
	b.now = func() time.Time { return now }
	k := scope.Key("triage:acme/p:jira:work_item:1")
	other := scope.Key("triage:acme/p:jira:work_item:2")
	for i := 0; i < 3; i++ {
		if !b.Allow(k) {
			t.Fatalf("run %d refused", i+1)
		}
		now = now.Add(10 * time.Minute)
	}
	if b.Allow(k) {
		t.Fatal("4th run within the hour allowed")
	}
	if !b.Allow(other) {
		t.Fatal("another key was limited")
	}
	now = now.Add(31 * time.Minute) // first start is now 61 minutes old
	if !b.Allow(k) {
		t.Fatal("run refused after the oldest start left the window")
	}
	if b.Allow(k) {
		t.Fatal("window allowed a 4th run")
	}
}

func TestBreakerDisabledAndPrune(t *testing.T) {
	if !NewBreaker(0).Allow("k") || !(*Breaker)(nil).Allow("k") {
		t.Fatal("disabled breaker refused")
	}
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	b := NewBreaker(2)
	b.now = func() time.Time { return now }
	for i := 0; i < 100; i++ {
		b.Allow(scope.Key(rune('a' + i%26)))
	}
	now = now.Add(2 * time.Hour)
	b.Allow("fresh")
	if got := b.Keys(); got != 1 {
		t.Fatalf("keys after prune = %d, want 1", got)
	}
}

func TestBreakerConcurrent(t *testing.T) {
	b := NewBreaker(5)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				if b.Allow("hot") {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 5 {
		t.Fatalf("allowed %d, want 5", allowed)
	}
}
