package poll

import "sync"

// Each calls f for every element, at most n at a time, and waits.
func Each[T any](n int, xs []T, f func(T)) {
	if n < 1 {
		n = 1
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, x := range xs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(x)
		}()
	}
	wg.Wait()
}
