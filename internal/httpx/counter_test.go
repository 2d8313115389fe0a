package httpx

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
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

// The counter keeps the rate-limit budget of the last answer that
// reported one; an answer without (or with a malformed one) leaves it.
func TestCounterRateLimit(t *testing.T) {
	reset := time.Unix(1_800_000_000, 0).UTC()
	answers := []struct {
		header map[string]string
		want   RateLimit
		ok     bool
	}{
		{nil, RateLimit{}, false},
		{map[string]string{"X-Limit": "5000", "X-Remaining": "4990", "X-Reset": "1800000000"}, RateLimit{5000, 4990, reset}, true},
		{map[string]string{"X-Limit": "5000", "X-Remaining": "-1", "X-Reset": "1800000000"}, RateLimit{5000, 4990, reset}, true},
		{map[string]string{}, RateLimit{5000, 4990, reset}, true},
		{map[string]string{"X-Limit": "600", "X-Remaining": "0"}, RateLimit{600, 0, time.Time{}}, true},
	}
	var next map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range next {
			w.Header().Set(k, v)
		}
	}))
	defer srv.Close()
	c := &Counter{Next: http.DefaultTransport, Rate: func(h http.Header) (RateLimit, bool) { return UnixRateHeaders(h, "X-") }}
	hc := &http.Client{Transport: c}
	for i, a := range answers {
		next = a.header
		resp, err := hc.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got, ok := c.RateLimit(); got != a.want || ok != a.ok {
			t.Errorf("after answer %d: %+v %v, want %+v %v", i, got, ok, a.want, a.ok)
		}
	}
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
}

func TestUnixRateHeaders(t *testing.T) {
	cases := []struct {
		name string
		h    map[string]string
		want RateLimit
		ok   bool
	}{
		{"all three", map[string]string{"RateLimit-Limit": "2000", "RateLimit-Remaining": "1999", "RateLimit-Reset": "1800000060"},
			RateLimit{2000, 1999, time.Unix(1_800_000_060, 0).UTC()}, true},
		{"no reset", map[string]string{"RateLimit-Limit": "2000", "RateLimit-Remaining": "5"}, RateLimit{2000, 5, time.Time{}}, true},
		{"bad reset", map[string]string{"RateLimit-Limit": "2000", "RateLimit-Remaining": "5", "RateLimit-Reset": "soon"}, RateLimit{2000, 5, time.Time{}}, true},
		{"no limit", map[string]string{"RateLimit-Remaining": "5"}, RateLimit{}, false},
		{"zero limit", map[string]string{"RateLimit-Limit": "0", "RateLimit-Remaining": "0"}, RateLimit{}, false},
		{"huge", map[string]string{"RateLimit-Limit": "99999999999", "RateLimit-Remaining": "5"}, RateLimit{}, false},
		{"negative remaining", map[string]string{"RateLimit-Limit": "10", "RateLimit-Remaining": "-5"}, RateLimit{}, false},
		{"other prefix", map[string]string{"X-RateLimit-Limit": "10", "X-RateLimit-Remaining": "5"}, RateLimit{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.h {
				h.Set(k, v)
			}
			if got, ok := UnixRateHeaders(h, "RateLimit-"); got != tc.want || ok != tc.ok {
				t.Fatalf("%+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// FuzzUnixRateHeaders: any header values give a budget within its bounds
// or none, never a panic.
func FuzzUnixRateHeaders(f *testing.F) {
	f.Add("5000", "4999", "1800000000")
	f.Add("-1", "0", "x")
	f.Add("1_000", "+5", "99999999999999999999")
	f.Fuzz(func(t *testing.T, limit, remaining, reset string) {
		h := http.Header{"Ratelimit-Limit": {limit}, "Ratelimit-Remaining": {remaining}, "Ratelimit-Reset": {reset}}
		rl, ok := UnixRateHeaders(h, "RateLimit-")
		if !ok {
			if rl != (RateLimit{}) {
				t.Fatalf("no budget but %+v", rl)
			}
			return
		}
		if rl.Limit <= 0 || rl.Remaining < 0 || rl.Limit > maxRate || rl.Remaining > maxRate || rl.Reset.Year() > 9999 {
			t.Fatalf("out of bounds: %+v", rl)
		}
	})
}
