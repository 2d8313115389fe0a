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

// A refunded slot (a dispatch that failed) does not count: seven failures
// in a row leave the scope its whole budget.
func TestBreakerRefund(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	b := NewBreakerClock(2, func() time.Time { return now })
	k := scope.Key("triage:acme/p:jira:work_item:1")
	for i := range 7 {
		if !b.Allow(k) {
			t.Fatalf("attempt %d refused after refunds", i+1)
		}
		b.Refund(k)
		now = now.Add(time.Minute)
	}
	if !b.Allow(k) || !b.Allow(k) {
		t.Fatal("the two real starts were refused")
	}
	if b.Allow(k) {
		t.Fatal("a third start within the hour was allowed")
	}
	b.Refund("unknown") // no slot to return: no effect, no panic
	NewBreaker(0).Refund(k)
	(*Breaker)(nil).Refund(k)
}
