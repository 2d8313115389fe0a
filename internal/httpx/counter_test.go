package httpx

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

func TestCounter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	c := &Counter{Next: http.DefaultTransport}
	hc := &http.Client{Transport: c}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			resp, err := hc.Get(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	if got := c.Calls(); got != 10 {
		t.Fatalf("Calls() = %d, want 10", got)
	}
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
}
